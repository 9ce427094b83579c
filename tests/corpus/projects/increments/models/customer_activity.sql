select c.customer_id, c.clicks, coalesce(t.amount, 0) as amount
from (select customer_id, count(*) as clicks from {{ ref('clicks_append') }} group by customer_id) as c
left join {{ ref('customer_totals') }} as t using (customer_id)
