select customer_id, orders, amount::decimal(18, 2) as amount from {{ ref('pkg_customer_orders') }}
