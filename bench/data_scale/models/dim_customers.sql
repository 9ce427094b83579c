select c.customer_id, c.customer_name, c.signed_up, r.region_name, r.region_group
from {{ ref('stg_customers') }} c left join {{ ref('dim_regions') }} r on r.region_id = c.region_id
