#pragma once
// When PostgreSQL's cumulative statistics are settled (docs/warehouses.md, "Why the statistics are
// evidence"): since PostgreSQL 15 a session flushes its counts only when it goes idle (at most once
// a second, else within a 10 s idle timeout), so a change committed by a session that is still
// busy, or went idle moments ago, may not be counted yet. Shared by the sources' statistics
// (postgres_versions.cc) and the relation identity's check (postgres_identity.cc). SQL text
// only; pure, thread-safe.
#include <string>

#include "ods/postgres/postgres_versions.h"

namespace ods::postgres {

// " from pg_catalog.pg_stat_activity a where ...": the other sessions of the current database
// that could have written its tables (not this session or its parallel workers, not autovacuum
// workers or WAL senders, not ODS's own state-store sessions named `ods`).
inline std::string other_sessions_sql() {
  return " from pg_catalog.pg_stat_activity a where a.datname = pg_catalog.current_database() and "
         "a.pid <> pg_catalog.pg_backend_pid() and a.leader_pid is distinct from pg_catalog.pg_backend_pid() and "
         "a.backend_type not in ('autovacuum worker', 'walsender') and a.application_name is distinct from 'ods'";
}

// A condition on `a` (other_sessions_sql): the session may hold counts not flushed yet (it is
// busy, in a transaction, went idle less than kStatisticsSettleSeconds ago, or hides its state
// from this role: state NULL).
inline std::string unsettled_session_sql() {
  return "(a.state is distinct from 'idle' or a.state_change > pg_catalog.statement_timestamp() - interval '" +
         std::to_string(kStatisticsSettleSeconds) + " seconds')";
}

}  // namespace ods::postgres
