select * from {{ source('raw', 'shipments') }}
