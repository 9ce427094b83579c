{{ config(materialized='view') }}
select id as order_id, customer_id, product_id, ordered_at, cast(ordered_at as date) as order_date, status, amount
from {{ source('raw', 'orders') }}
where status <> 'returned'
