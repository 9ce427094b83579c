select customer_id, count(*) as orders, sum(amount) as amount from {{ ref('pkg_orders') }} group by customer_id
