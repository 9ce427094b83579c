-- Reads only raw.customers (a source without loaded_at_field) and nothing else.
select
    customer_id,
    first_name,
    last_name,
    first_name || ' ' || last_name as full_name,
    lower(email) as email,
    upper(country_code) as country_code,
    created_at
from {{ source('raw', 'customers') }}
