{{ config(materialized='view') }}
select id as event_id, customer_id, occurred_at, cast(occurred_at as date) as event_date, kind, session
from {{ source('raw', 'events') }}
