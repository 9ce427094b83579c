select status, count(*) as orders, sum(amount) as amount from {{ ref('pkg_orders') }} group by status
