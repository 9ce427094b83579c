select customer_id, orders, amount::decimal(18, 2) as amount, (amount / orders)::decimal(18, 2) as average_amount
from {{ ref('pkg_customer_orders') }}
