-- Singular test: no order is paid more than its amount.
select order_id, amount, paid_amount
from {{ ref('fct_orders') }}
where paid_amount > amount
