select order_date, status, count(*) as orders, sum(amount) as revenue from {{ ref('stg_orders') }} group by 1, 2
