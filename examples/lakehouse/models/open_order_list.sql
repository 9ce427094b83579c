select * from {{ source('raw', 'open_orders') }}
