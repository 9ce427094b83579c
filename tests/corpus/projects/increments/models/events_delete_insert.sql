{{ config(materialized='incremental', incremental_strategy='delete+insert', unique_key='id') }}
select id, customer_id, amount, status, updated_at from {{ ref('stg_events') }}
{% if is_incremental() %}
where updated_at > (select max(updated_at) from {{ this }})
{% endif %}
