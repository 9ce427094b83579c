{# An amount in cents as dollars; projects may override default__amount_in_dollars. #}
{% macro amount_in_dollars(column) -%}
  {{ return(adapter.dispatch('amount_in_dollars', 'corpus_pkg')(column)) }}
{%- endmacro %}

{% macro default__amount_in_dollars(column) -%}
  ({{ column }} / 100.0)
{%- endmacro %}
