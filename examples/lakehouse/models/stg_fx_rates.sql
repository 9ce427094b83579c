select * from {{ source('raw', 'fx_rates') }}
