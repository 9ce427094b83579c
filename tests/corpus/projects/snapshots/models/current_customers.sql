select c.customer_id, c.name, c.tier, p.monthly_fee
from {{ ref('customers_by_time') }} as c
left join {{ source('raw', 'plans') }} as p on p.tier = c.tier
where c.dbt_valid_to is null
