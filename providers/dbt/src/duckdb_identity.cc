#include "ods/dbt/duckdb_identity.h"

namespace ods::dbt {

std::map<std::string, std::string> duckdb_identity_statements() {
  // typeof() of the row is its static type, STRUCT(name TYPE, ...) in column order, even over no
  // rows (the scalar subquery is then a typed NULL); the aliases name the whole row only while no
  // column has their name, hence names no model would use (as DuckDB's content fingerprint).
  return {{"table",
           "select 'rows=' || count(*)::varchar || ';hash=' || coalesce(sum(hash(ods_row__)), 0)::varchar || "
           "';columns=' || md5(typeof((select ods_columns__ from {relation} as ods_columns__ limit 1))) as identity "
           "from {relation} as ods_row__"},
          {"view",
           "select 'definition=' || md5(sql) as identity from duckdb_views() where database_name = '{database}' and "
           "schema_name = '{schema}' and view_name = '{identifier}'"}};
}

}  // namespace ods::dbt
