{# Overrides corpus_pkg's default: dollars rounded to cents. #}
{% macro default__amount_in_dollars(column) -%}
  round({{ column }} / 100.0, 2)
{%- endmacro %}
