{# fakesnow refuses a temporary relation qualified by database and schema ("TEMPORARY table names
   can only use the temp catalog"); Snowflake accepts both, so the suite's project names it alone. #}
{% macro snowflake__make_temp_relation(base_relation, suffix) %}
  {{ return(base_relation.incorporate(path={"identifier": base_relation.identifier ~ suffix, "database": none, "schema": none})) }}
{% endmacro %}
