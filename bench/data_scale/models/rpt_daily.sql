with o as (select order_date as day, sum(orders) as orders, sum(revenue) as revenue from {{ ref('fct_orders_daily') }} group by 1),
e as (select event_date as day, sum(events) as events from {{ ref('fct_events_daily') }} group by 1),
p as (select paid_date as day, sum(paid) as paid from {{ ref('fct_payments_daily') }} group by 1)
select coalesce(o.day, e.day, p.day) as day, o.orders, o.revenue, e.events, p.paid
from o full join e on e.day = o.day full join p on p.day = coalesce(o.day, e.day)
