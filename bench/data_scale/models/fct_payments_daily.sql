select paid_date, method, count(*) as payments, sum(amount) as paid from {{ ref('stg_payments') }} group by 1, 2
