#include "ods/postgres/postgres_identity.h"

#include "statistics_settle.h"

namespace ods::postgres {

namespace {

// The relation by its schema and name, with its statistics row (absent for a view).
constexpr const char* kRelation =
    " from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace left join "
    "pg_catalog.pg_stat_user_tables s on s.relid = c.oid where n.nspname = '{schema}' and c.relname = '{identifier}'";

// Text of a time as epoch seconds: the session's DateStyle and TimeZone don't change it.
std::string epoch(const std::string& time) { return "coalesce(extract(epoch from " + time + ")::text, 'never')"; }

// `settled`: also NULL while another session whose role may write the table may hold counts not
// flushed yet (statistics_settle.h).
std::string table_sql(bool settled) {
  const std::string unsettled =
      settled ? " and not exists (select 1" + other_sessions_sql("c.oid") + " and " + unsettled_session_sql() + ")"
              : "";
  return "select case when c.relkind in ('r', 'm') and s.relid is not null and not pg_catalog.pg_is_in_recovery() "
         "and pg_catalog.current_setting('track_counts') = 'on' and not exists (select 1 from pg_catalog.pg_inherits "
         "i where i.inhparent = c.oid)" +
         unsettled +
         " then 'oid=' || c.oid::text || ';relfilenode=' || c.relfilenode::text || "
         "';ins=' || s.n_tup_ins::text || ';upd=' || s.n_tup_upd::text || ';del=' || s.n_tup_del::text || "
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
