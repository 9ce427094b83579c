{{ config(materialized='view') }}
select id as payment_id, order_id, paid_at, cast(paid_at as date) as paid_date, method, amount
from {{ source('raw', 'payments') }}
