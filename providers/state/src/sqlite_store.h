#pragma once
// The SQLite StateStore with an injectable migration list, for tests of migrating.
// Production code calls ods::state::open_sqlite_store (builtin_migrations()).
#include <memory>
#include <string>
#include <vector>

#include "ods/contracts/state_store.h"
#include "ods/state/stores.h"
#include "sqlite_migrations.h"

namespace ods::state::internal {

// As open_sqlite_store, migrating with `migrations`, whose first entry must be
// builtin_migrations()[0] (the store's statements need its tables).
[[nodiscard]] ods::Result<std::unique_ptr<ods::contracts::StateStore>> open_sqlite_store_with(
    const std::string& path, const Clock& clock, const OpenOptions& options, const std::vector<Migration>& migrations);

}  // namespace ods::state::internal
