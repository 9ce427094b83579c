#pragma once
// Numbered schema migrations of the PostgreSQL state database. Internal to providers/state.
// The tables live in the connection's current schema (search_path); `schema_migrations`
// records each migration that ran (see schema_history.h).
#include <vector>

#include "ods/base/clock.h"
#include "ods/base/result.h"
#include "postgres_connection.h"
#include "schema_history.h"

namespace ods::state::internal {

// The migrations this binary knows, versions 1..N.
const std::vector<Migration>& builtin_postgres_migrations();

// The advisory lock key every ODS process takes (transaction-scoped) while it reads and
// applies migrations, so processes starting at once migrate once.
inline constexpr long long kMigrationLockKey = 0x6f64735f6d6967LL;  // "ods_mig"

// Brings the database up to the last of `migrations` in one transaction holding the
// advisory lock: reads the record, refuses a database with a newer schema ("newer_schema")
// or a record this list doesn't match, or ODS-looking tables without a record ("corrupt"),
// leaving it untouched; applies the missing migrations and their records (PostgreSQL DDL is
// transactional: "migration_failed" keeps nothing of any). Returns the schema version.
// With `create` false, a database without ODS tables is "not_found" and gets none.
// With `read_only`, nothing is written: a database behind `migrations` is "outdated_schema".
[[nodiscard]] ods::Result<int> migrate_postgres(PgConnection& connection, const std::vector<Migration>& migrations,
                                                const Clock& clock, bool create, bool read_only = false);

}  // namespace ods::state::internal
