#pragma once
// Numbered schema migrations, shared by the SQLite and PostgreSQL stores. Internal to
// providers/state. Each database records the migrations that ran (version, name,
// applied_at) in `schema_migrations`; versions run 1..N without gaps and a database's
// schema version is the highest recorded. Released migrations are never edited: a change
// is a new migration.
#include <string>
#include <vector>

#include "ods/base/result.h"

namespace ods::state::internal {

struct Migration {
  int version;       // 1, 2, … in order
  std::string name;  // stable snake_case; recorded and compared on every open
  std::string sql;   // one or more statements; runs inside the migration transaction
};

struct AppliedMigration {
  int version;
  std::string name;
};

// The schema version `applied` (read from `database`, e.g. "State database /x.db") amounts
// to, after checking it against `migrations`: "newer_schema" when it has run migrations
// beyond them, "corrupt" when it records a migration they don't have at that place.
// Messages name the database and end with `untouched` ("the file was left untouched.").
[[nodiscard]] ods::Result<int> recorded_schema_version(const std::vector<AppliedMigration>& applied,
                                                       const std::vector<Migration>& migrations,
                                                       const std::string& database, const std::string& untouched);

// Applies, in order, each of `migrations` newer than version `current`, inside the caller's
// transaction: `run(migration)` runs its SQL, then `record(migration)` adds its
// schema_migrations row. A migration that fails is "migration_failed" ("Migration N 'name' of
// <database> failed, so none was applied: …"); a record that fails is returned as it is.
template <class Run, class Record>
[[nodiscard]] ods::Result<void> apply_migrations_after(int current, const std::vector<Migration>& migrations,
                                                       const std::string& database, Run run, Record record) {
  for (const Migration& migration : migrations) {
    if (migration.version <= current) continue;
    auto applied = run(migration);
    if (!applied) {
      return ods::fail("migration_failed", "Migration " + std::to_string(migration.version) + " '" + migration.name +
                                               "' of " + database +
                                               " failed, so none was applied: " + applied.error().message);
    }
    auto recorded = record(migration);
    if (!recorded) return std::unexpected(recorded.error());
  }
  return {};
}

}  // namespace ods::state::internal
