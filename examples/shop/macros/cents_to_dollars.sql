{# Pure macro (no var/env_var/target): converts an integer amount in cents to dollars. #}
{% macro cents_to_dollars(column_name, scale=2) -%}
    cast(({{ column_name }}) / 100.0 as decimal(18, {{ scale }}))
{%- endmacro %}
