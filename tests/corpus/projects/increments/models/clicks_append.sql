{{ config(materialized='incremental', incremental_strategy='append') }}
select click_id, customer_id, clicked_at from {{ source('raw', 'clicks') }}
{% if is_incremental() %}
where clicked_at > (select max(clicked_at) from {{ this }})
{% endif %}
