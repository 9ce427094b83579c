-- Ephemeral: inlined as a CTE into fct_orders, never built on its own.
select
    order_id,
    count(*) as payment_count,
    sum(amount_cents) as paid_cents,
    {{ cents_to_dollars('sum(amount_cents)') }} as paid_amount,
    string_agg(distinct payment_method, ',' order by payment_method) as payment_methods
from {{ ref('stg_payments') }}
group by order_id
