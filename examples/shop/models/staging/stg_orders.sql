-- Pure Jinja (only source()): its SQL component is formatting-insensitive, so a comment or
-- whitespace edit here is reused ("only formatting changed").
select
    order_id,
    customer_id,
    ordered_at,
    cast(ordered_at as date) as order_date,
    lower(status) as status,
    amount_cents,
    cast(amount_cents / 100.0 as decimal(18, 2)) as amount,
    loaded_at
from {{ source('raw', 'orders') }}
