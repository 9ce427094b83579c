select * from {{ source('raw', 'orders') }}
