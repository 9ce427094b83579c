{#- The bench's sources, generated inside the warehouse (bench/data_scale.sh runs these with
    `dbt run-operation`). Rows per GB of PostgreSQL storage (measured: 0.1 GB gives about
    0.1 GB in pg_total_relation_size); DuckDB gets the same rows (its file is smaller). -#}
{% macro bench_rows(table) -%}
  {%- set per_gb = {'orders': 6500000, 'events': 5000000, 'payments': 2500000, 'customers': 200000, 'products': 20000} -%}
  {{- (per_gb[table] * (var('bench_gb') | float)) | int if table in per_gb else 1000 -}}
{%- endmacro %}

{#- rows g = FIRST..LAST of a series, with `g` the row number -#}
{% macro bench_series(first, last) -%}
  {%- if target.type == 'duckdb' -%} range({{ first }}, {{ last }} + 1) as t(g)
  {%- else -%} generate_series({{ first }}::bigint, {{ last }}::bigint) as g {%- endif -%}
{%- endmacro %}

{% macro bench_seconds(x) -%}
  {%- if target.type == 'duckdb' -%} to_seconds({{ x }}) {%- else -%} make_interval(secs => {{ x }}) {%- endif -%}
{%- endmacro %}

{#- the select giving rows FIRST..LAST of raw.TABLE (the same rows every time) -#}
{% macro bench_select(table, first, last) -%}
  {%- set customers = bench_rows('customers') | int -%}
  {%- if table == 'orders' -%}
    select g, g % {{ customers }} + 1, g % {{ bench_rows('products') }} + 1,
      timestamp '2024-01-01' + {{ bench_seconds('g') }},
      case g % 4 when 0 then 'placed' when 1 then 'shipped' when 2 then 'completed' else 'returned' end,
      (g % 10000) / 100.0
  {%- elif table == 'events' -%}
    select g, g % {{ customers }} + 1, timestamp '2024-01-01' + {{ bench_seconds('g * 2') }},
      case g % 5 when 0 then 'view' when 1 then 'click' when 2 then 'cart' when 3 then 'search' else 'login' end,
      'session-' || cast(g % 100003 as varchar)
  {%- elif table == 'payments' -%}
    select g, g * 2, timestamp '2024-01-01' + {{ bench_seconds('g * 3') }},
      case g % 3 when 0 then 'card' when 1 then 'transfer' else 'voucher' end, (g % 5000) / 10.0
  {%- elif table == 'customers' -%}
    select g, 'customer ' || cast(g as varchar), g % 25 + 1, date '2020-01-01' + cast(g % 1500 as integer)
  {%- elif table == 'products' -%}
    select g, 'product ' || cast(g as varchar), g % 25 + 1, (g % 900) / 10.0 + 1
  {%- else -%}
    select g, '{{ table }} ' || cast(g as varchar), g % 7
  {%- endif %}
  from {{ bench_series(first, last) }}
{%- endmacro %}

{% macro bench_columns(table) -%}
  {%- set columns = {
    'orders': 'id bigint, customer_id bigint, product_id bigint, ordered_at timestamp, status varchar(16), amount numeric(12, 2)',
    'events': 'id bigint, customer_id bigint, occurred_at timestamp, kind varchar(16), session varchar(32)',
    'payments': 'id bigint, order_id bigint, paid_at timestamp, method varchar(16), amount numeric(12, 2)',
    'customers': 'id bigint, name varchar(64), region_id integer, signed_up date',
    'products': 'id bigint, name varchar(64), category_id integer, price numeric(12, 2)'} -%}
  {{- columns[table] if table in columns else 'id bigint, label varchar(64), grp integer' -}}
{%- endmacro %}

{% macro bench_tables() -%}
  {%- set refs = [] -%}
  {%- for i in range(1, 26) %}{% do refs.append('ref_%02d' % i) %}{% endfor -%}
  {{- return(['orders', 'events', 'payments', 'customers', 'products'] + refs) -}}
{%- endmacro %}

{#- Creates every missing source table with its rows (a table already there is left as it is). -#}
{% macro bench_create_raw() %}
  {% do run_query('create schema if not exists raw') %}
  {% set present = run_query("select table_name from information_schema.tables where table_schema = 'raw'").columns[0].values() %}
  {% for table in bench_tables() %}
    {% if table not in present %}
      {% do log('bench: generating raw.' ~ table ~ ' (' ~ bench_rows(table) ~ ' rows)', info=true) %}
      {% do run_query('create table raw.' ~ table ~ ' (' ~ bench_columns(table) ~ ')') %}
      {% do run_query('insert into raw.' ~ table ~ ' ' ~ bench_select(table, 1, bench_rows(table))) %}
      {% do bench_commit() %}
    {% endif %}
  {% endfor %}
{% endmacro %}

{#- PostgreSQL: psycopg2 opened a transaction that dbt does not know of (DuckDB's statements commit each). -#}
{% macro bench_commit() %}{% if target.type == 'postgres' %}{% do run_query('commit') %}{% endif %}{% endmacro %}

{#- The changes the bench applies between runs (CHANGE: see bench/data_scale.sh). -#}
{% macro bench_change(change) %}
  {%- set n = bench_rows('events') | int -%}
  {%- set p = bench_rows('payments') | int -%}
  {%- set statements = {
    'reset': ['delete from raw.ref_07 where id > 1000', 'delete from raw.events where id > ' ~ n],
    'small_append': ['insert into raw.ref_07 ' ~ bench_select('ref_07', 1001, 1001)],
    'large_append': ['insert into raw.events ' ~ bench_select('events', n + 1, n + (n // 100))],
    'large_update': ['update raw.payments set amount = -amount where id % 100 = 0'],
    'large_reload': ['delete from raw.orders' if target.type == 'duckdb' else 'truncate raw.orders',
                     'insert into raw.orders ' ~ bench_select('orders', 1, bench_rows('orders'))]}[change] -%}
  {% for s in statements %}{% do run_query(s) %}{% endfor %}
  {% do bench_commit() %}
{% endmacro %}

{#- Drops what the bench's runs built (both targets' schemas), so the next run is a first build. -#}
{% macro bench_drop_outputs() %}
  {% for schema in ['ods', 'peer'] %}{% do run_query('drop schema if exists ' ~ schema ~ ' cascade') %}{% endfor %}
  {% do bench_commit() %}
{% endmacro %}
