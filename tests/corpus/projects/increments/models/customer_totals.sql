select customer_id, count(*) as events, sum(amount) as amount, count(*) filter (where is_large) as large_events
from {{ ref('events_merge') }}
group by customer_id
