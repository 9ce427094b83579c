{# The emulator suites drop a built model's relation, as someone might by hand. #}
{% macro drop_order_totals() %}
  {% do adapter.drop_relation(api.Relation.create(database=target.database, schema=target.schema, identifier='order_totals', type='table')) %}
{% endmacro %}
