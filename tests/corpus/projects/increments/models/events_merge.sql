{{ config(materialized='incremental', incremental_strategy='merge', unique_key='id') }}
select id, customer_id, amount, status, updated_at, is_large from {{ ref('int_events_enriched') }}
{% if is_incremental() %}
where updated_at > (select max(updated_at) from {{ this }})
{% endif %}
