select customer_id, count(*) as orders, sum(amount) as revenue, max(ordered_at) as last_order_at
from {{ ref('stg_orders') }} group by 1
