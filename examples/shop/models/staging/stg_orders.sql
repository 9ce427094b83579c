select
    order_id,
    customer_id,
    ordered_at,
    cast(ordered_at as date) as order_date,
    lower(status) as status,
    amount_cents,
    {{ cents_to_dollars('amount_cents') }} as amount,
    loaded_at
from {{ source('raw', 'orders') }}
