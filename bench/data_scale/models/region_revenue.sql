select c.region_name, count(*) as customers, sum(r.revenue) as revenue
from {{ ref('customer_revenue') }} r join {{ ref('dim_customers') }} c on c.customer_id = r.customer_id
group by 1
