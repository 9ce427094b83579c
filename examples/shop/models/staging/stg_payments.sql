select
    payment_id,
    order_id,
    payment_method,
    amount_cents,
    {{ cents_to_dollars('amount_cents') }} as amount,
    created_at as paid_at
from {{ source('raw', 'payments') }}
