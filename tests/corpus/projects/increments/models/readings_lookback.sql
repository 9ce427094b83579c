{# Late rows arrive up to 3 days behind the newest: each run re-reads that window. #}
{{ config(materialized='incremental', incremental_strategy='merge', unique_key='reading_id') }}
select reading_id, sensor, reading_day, value from {{ source('raw', 'readings') }}
{% if is_incremental() %}
where reading_day >= (select max(reading_day) - interval 3 day from {{ this }})
{% endif %}
