select event_date, kind, count(*) as events, count(distinct customer_id) as customers
from {{ ref('stg_events') }} group by 1, 2
