{{ config(materialized='view') }}
select id as customer_id, name as customer_name, region_id, signed_up from {{ source('raw', 'customers') }}
