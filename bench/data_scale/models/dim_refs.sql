-- the 25 small reference tables in one dimension (group g of reference table i)
{% for i in range(1, 26) -%}
select {{ i }} as ref_table, id as ref_id, label, grp from {{ source('raw', 'ref_%02d' % i) }}
{% if not loop.last %}union all{% endif %}
{% endfor %}
