{{ config(materialized='view') }}
select order_id, customer_id, status, {{ corpus_pkg.amount_in_dollars('amount_cents') }} as amount
from {{ source('pkg_raw', 'orders') }}
