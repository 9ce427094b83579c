-- A refund is recorded as a status, never as a negative amount.
select id, amount from {{ ref('stg_events') }} where amount < 0
