#pragma once
// Numbered schema migrations of the SQLite state database. Internal to providers/state.
//
// The database records each migration that ran in `schema_migrations` (version, name,
// applied_at). Versions run 1..N without gaps; a database's schema version is the highest
// recorded. Migrations are never edited once released: a change is a new migration.
#include <string>
#include <vector>

#include "ods/base/clock.h"
#include "ods/base/result.h"
#include "ods/state/stores.h"
#include "schema_history.h"
#include "sqlite_connection.h"

namespace ods::state::internal {

// The migrations this binary knows, versions 1..N.
const std::vector<Migration>& builtin_migrations();

struct MigrationOutcome {
  int from_version = 0;  // 0: the database was new (no tables)
  int to_version = 0;
  std::string backup_path;  // the copy kept before migrating; empty when none was needed
};

// Brings the database on `connection` up to the last of `migrations`:
//   - reads the recorded migrations (never writing) and refuses, leaving the file untouched,
//     a database that is not SQLite, holds tables but no migration record, records a
//     migration this list doesn't have under that number ("corrupt"), or has run
//     migrations beyond this list ("newer_schema");
//   - when behind and the database already has a schema, copies it to
//     "<path>.bak-v<from>" (".1", ".2"… appended if taken) and tells options.on_notice;
//   - applies the missing migrations and their records in one BEGIN IMMEDIATE transaction
//     ("migration_failed" if one fails: nothing of any is kept).
[[nodiscard]] ods::Result<MigrationOutcome> migrate(Connection& connection, const std::vector<Migration>& migrations,
                                                    const Clock& clock, const OpenOptions& options);

// For a read-only open: the same refusals as migrate, never writing; a database without a
// schema is "not_found" and one behind `migrations` is "outdated_schema" (nothing migrated).
[[nodiscard]] ods::Result<MigrationOutcome> check_current(Connection& connection,
                                                          const std::vector<Migration>& migrations);

}  // namespace ods::state::internal
