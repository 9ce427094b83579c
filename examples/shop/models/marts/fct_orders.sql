-- Reads both orders (has loaded_at_field) and payments (through the ephemeral model),
-- and the var min_order_amount.
-- Portable (DuckDB and PostgreSQL): the typed 0 keeps paid_amount decimal(18, 2) on both.
select
    o.order_id,
    o.customer_id,
    o.ordered_at,
    o.order_date,
    o.status,
    o.amount,
    coalesce(p.paid_amount, cast(0 as decimal(18, 2))) as paid_amount,
    coalesce(p.payment_count, 0) as payment_count,
    p.payment_methods,
    o.status not in ('cancelled', 'returned') as is_revenue,
    o.loaded_at
from {{ ref('stg_orders') }} as o
left join {{ ref('int_order_payments') }} as p using (order_id)
where o.amount >= {{ var('min_order_amount') }}
