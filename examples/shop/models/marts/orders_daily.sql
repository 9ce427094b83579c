{{ config(
    materialized='incremental',
    unique_key='order_date',
    incremental_strategy='delete+insert'
) }}
-- Incremental: on later runs, recomputes only the days that received newly loaded orders.
-- Portable (DuckDB and PostgreSQL): amount_cents is a bigint on both (DuckDB's sum would be a hugeint).
select
    order_date,
    count(*) as order_count,
    cast(sum(amount_cents) as bigint) as amount_cents,
    {{ cents_to_dollars('sum(amount_cents)') }} as amount,
    max(loaded_at) as max_loaded_at
from {{ ref('stg_orders') }}
{% if is_incremental() %}
where order_date in (
    select distinct order_date
    from {{ ref('stg_orders') }}
    where loaded_at > (select coalesce(max(max_loaded_at), timestamp '1900-01-01') from {{ this }})
)
{% endif %}
group by order_date
