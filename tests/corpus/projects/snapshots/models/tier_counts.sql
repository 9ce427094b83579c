select tier, count(*) as customers from {{ ref('current_customers') }} group by tier
