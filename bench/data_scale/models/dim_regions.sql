select ref_id as region_id, label as region_name, grp as region_group from {{ ref('dim_refs') }} where ref_table = 7
