#pragma once
// The PostgreSQL StateStore with an injectable migration list, for tests of migrating.
// Production code calls ods::state::open_postgres_store (builtin_postgres_migrations()).
#include <memory>
#include <string>
#include <vector>

#include "ods/contracts/state_store.h"
#include "ods/state/stores.h"
#include "schema_history.h"

namespace ods::state::internal {

[[nodiscard]] ods::Result<std::unique_ptr<ods::contracts::StateStore>> open_postgres_store_with(
    const std::string& conninfo, const Clock& clock, const OpenOptions& options,
    const std::vector<Migration>& migrations);

}  // namespace ods::state::internal
