select * from {{ source('raw', 'refunds') }}
