select id, amount from {{ source('raw', 'order_feed') }}
