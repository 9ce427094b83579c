#include "ods/postgres/postgres_identity.h"

#include "statistics_settle.h"

namespace ods::postgres {

namespace {

// The relation by its schema and name. Its statistics are read with the functions
// pg_stat_user_tables reads them with, on c.oid alone: joined, that view is computed over every
// table of the database in each relation's statement, so a probe of N relations cost N x N
// (seconds at 1,000 nodes).
constexpr const char* kRelation =
    " from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace where n.nspname = "
    "'{schema}' and c.relname = '{identifier}'";

// pg_stat_user_tables has a row for the table (its relkind already 'r' or 'm'): not in a system
// schema, as that view's own definition says.
constexpr const char* kUserTable = "n.nspname not in ('pg_catalog', 'information_schema') and n.nspname !~ '^pg_toast'";

// Text of a time as epoch seconds: the session's DateStyle and TimeZone don't change it.
std::string epoch(const std::string& time) { return "coalesce(extract(epoch from " + time + ")::text, 'never')"; }

// `settled`: also NULL while another session whose role may write the table may hold counts not
// flushed yet (statistics_settle.h).
std::string table_sql(bool settled) {
  const std::string unsettled =
      settled ? " and not exists (select 1" + other_sessions_sql("c.oid") + " and " + unsettled_session_sql() + ")"
              : "";
  return "select case when c.relkind in ('r', 'm') and " + std::string(kUserTable) +
         " and not pg_catalog.pg_is_in_recovery() "
         "and pg_catalog.current_setting('track_counts') = 'on' and not exists (select 1 from pg_catalog.pg_inherits "
         "i where i.inhparent = c.oid)" +
         unsettled +
         " then 'oid=' || c.oid::text || ';relfilenode=' || c.relfilenode::text || "
         "';ins=' || pg_catalog.pg_stat_get_tuples_inserted(c.oid)::text || ';upd=' || "
         "pg_catalog.pg_stat_get_tuples_updated(c.oid)::text || ';del=' || "
         "pg_catalog.pg_stat_get_tuples_deleted(c.oid)::text || "
         "';database_stats_reset=' || " +
         epoch(
             "(select d.stats_reset from pg_catalog.pg_stat_database d where d.datname = "
             "pg_catalog.current_database())") +
         " || ';cluster_stats_reset=' || " + epoch("(select w.stats_reset from pg_catalog.pg_stat_wal w)") +
         " || ';server_started=' || " + epoch("pg_catalog.pg_postmaster_start_time()") + " end as identity" + kRelation;
}

std::string view_sql() {
  return std::string(
             "select 'oid=' || c.oid::text || ';definition=' || pg_catalog.md5(pg_catalog.pg_get_viewdef(c.oid)) "
             "as identity") +
         kRelation + " and c.relkind = 'v'";
}

}  // namespace

std::map<std::string, std::string> identity_statements(IdentityRead read) {
  const bool settled = read == IdentityRead::checking;
  return {{"table", table_sql(settled)}, {"materialized_view", table_sql(settled)}, {"view", view_sql()}};
}

}  // namespace ods::postgres
