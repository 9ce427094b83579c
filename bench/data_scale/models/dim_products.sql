select p.product_id, p.product_name, p.price, k.category_name
from {{ ref('stg_products') }} p left join {{ ref('dim_categories') }} k on k.category_id = p.category_id
