select c.customer_id, c.customer_name, c.region_name, r.orders, r.revenue, a.events, a.last_seen_at
from {{ ref('dim_customers') }} c
left join {{ ref('customer_revenue') }} r on r.customer_id = c.customer_id
left join {{ ref('customer_activity') }} a on a.customer_id = c.customer_id
