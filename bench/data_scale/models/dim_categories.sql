select ref_id as category_id, label as category_name from {{ ref('dim_refs') }} where ref_table = 3
