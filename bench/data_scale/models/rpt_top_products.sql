select product_id, product_name, category_name, revenue from {{ ref('product_sales') }} order by revenue desc limit 100
