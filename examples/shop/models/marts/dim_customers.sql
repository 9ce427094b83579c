-- Reads customers (no loaded_at_field) and orders (has one) plus the seed.
-- Its pre-hook (in _marts.yml) reads env_var SHOP_AUDIT_TAG.
-- Portable (DuckDB and PostgreSQL): lifetime_value is decimal(38, 2) on both.
with order_stats as (
    select
        customer_id,
        count(*) as order_count,
        sum(case when is_revenue then amount else 0 end) as lifetime_value,
        min(ordered_at) as first_ordered_at,
        max(ordered_at) as last_ordered_at
    from {{ ref('fct_orders') }}
    group by customer_id
)

select
    c.customer_id,
    c.full_name,
    c.email,
    c.country_code,
    cc.country_name,
    cc.region,
    coalesce(s.order_count, 0) as order_count,
    cast(coalesce(s.lifetime_value, 0) as decimal(38, 2)) as lifetime_value,
    s.first_ordered_at,
    s.last_ordered_at
from {{ ref('stg_customers') }} as c
left join {{ ref('country_codes') }} as cc using (country_code)
left join order_stats as s using (customer_id)
