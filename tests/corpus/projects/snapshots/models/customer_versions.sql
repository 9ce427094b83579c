select customer_id, count(*) as versions, count(*) filter (where dbt_is_deleted = 'True') as deletions
from {{ ref('customers_by_check') }}
group by customer_id
