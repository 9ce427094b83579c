#pragma once
// A PostgreSQL session that stays busy, for the settle rule's tests (docs/warehouses.md, "Why the
// statistics are evidence"): psql runs `statements` then `select pg_sleep(600)` in one call, so
// the session never goes idle (and never flushes its statistics counts) until it is stopped.
// Test-only; not thread-safe (one BackgroundProcess).
#include <expected>
#include <filesystem>
#include <string>

#include "harness/background_process.h"
#include "harness/postgres_server.h"

namespace ods::testing {

// Starts the session as `role` on `database` of `pg` (its log: `dir`/<role>.log) and waits up to
// 10 s until pg_stat_activity shows it sleeping. The error says why not, with the log's tail.
[[nodiscard]] std::expected<void, std::string> start_busy_session(BackgroundProcess& session, const PostgresServer& pg,
                                                                  const std::string& role, const std::string& database,
                                                                  const std::string& statements,
                                                                  const std::filesystem::path& dir);

// Whether a session of `role` on `database` sleeps in a busy session's pg_sleep(600).
bool busy_session_sleeps(const PostgresServer& pg, const std::string& role, const std::string& database);

}  // namespace ods::testing
