select p.product_id, p.product_name, p.category_name, s.orders, s.revenue
from (select product_id, count(*) as orders, sum(amount) as revenue from {{ ref('stg_orders') }} group by 1) s
join {{ ref('dim_products') }} p on p.product_id = s.product_id
