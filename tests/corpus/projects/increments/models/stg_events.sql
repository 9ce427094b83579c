{{ config(materialized='view') }}
select id, customer_id, amount, status, updated_at from {{ source('raw', 'events') }}
