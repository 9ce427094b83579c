{{ config(materialized='ephemeral') }}
select id, customer_id, amount, status, updated_at, amount >= 100 as is_large
from {{ ref('stg_events') }}
