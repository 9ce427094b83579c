-- Orders with an amount: a new order of amount 0 changes the source, not this model's content.
select id, customer_id, amount from {{ source('raw', 'orders') }} where amount > 0
