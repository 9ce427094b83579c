#pragma once
// When PostgreSQL's cumulative statistics are settled (docs/warehouses.md, "Why the statistics are
// evidence"): since PostgreSQL 15 a session flushes its counts only when it goes idle (at most once
// a second, else within a 10 s idle timeout), so a change committed by a session that is still
// busy, or went idle moments ago, may not be counted yet. Only a session whose role may write a
// table can hold such counts for it, so the rule is per table. Shared by the sources' statistics
// (postgres_versions.cc) and the relation identity's check (postgres_identity.cc). SQL text
// only; pure, thread-safe.
#include <string>

#include "ods/postgres/postgres_versions.h"

namespace ods::postgres {

// " from pg_catalog.pg_stat_activity a where ...": the other sessions of the current database
// that could have written the table whose oid is the SQL expression `table_oid` (evaluated per
// table in the caller's statement, no extra round trip): those whose role may INSERT, UPDATE,
// DELETE or TRUNCATE it (has_table_privilege: a superuser may write every table; a NULL answer
// counts). Not this session or its parallel workers, not ODS's own state-store sessions named
// `ods`, not autovacuum workers or WAL senders. pg_stat_activity shows every session's role
// (usesysid) to every role, but hides the state and backend_type of other roles' sessions from a
// role without pg_read_all_stats: such a session is judged by its role like any other (its state
// reads NULL: unsettled). A process without a role (usesysid NULL: an autovacuum worker, however
// hidden) runs no client statements and is not counted.
inline std::string other_sessions_sql(const std::string& table_oid) {
  return " from pg_catalog.pg_stat_activity a where a.datname = pg_catalog.current_database() and "
         "a.pid <> pg_catalog.pg_backend_pid() and a.leader_pid is distinct from pg_catalog.pg_backend_pid() and "
         "coalesce(a.backend_type, '') not in ('autovacuum worker', 'walsender') and a.application_name is distinct "
         "from 'ods' and a.usesysid is not null and coalesce(pg_catalog.has_table_privilege(a.usesysid, " +
         table_oid + ", 'INSERT, UPDATE, DELETE, TRUNCATE'), true)";
}

// A condition on `a` (other_sessions_sql): the session hides its state from this role (no
// pg_read_all_stats, another role's session).
inline std::string hidden_session_sql() { return "(a.state is null and a.backend_type is null)"; }

// A condition on `a` (other_sessions_sql): the session may hold counts not flushed yet (it is
// busy, in a transaction, went idle less than kStatisticsSettleSeconds ago, or hides its state
// from this role: state NULL).
inline std::string unsettled_session_sql() {
  return "(a.state is distinct from 'idle' or a.state_change > pg_catalog.statement_timestamp() - interval '" +
         std::to_string(kStatisticsSettleSeconds) + " seconds')";
}

}  // namespace ods::postgres
