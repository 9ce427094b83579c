select customer_id, count(*) as events, max(occurred_at) as last_seen_at from {{ ref('stg_events') }} group by 1
