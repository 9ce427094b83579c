#pragma once
// check() of the PostgreSQL store: read-only integrity checks. Internal to providers/state.
#include <string>

#include "ods/base/result.h"
#include "ods/contracts/state_store.h"
#include "postgres_connection.h"

namespace ods::state::internal {

// Runs inside the caller's (read-only) transaction. Problems found: content whose digest
// does not match it, manifests naming missing chunks, chunks naming missing pieces, head
// documents that cannot be put back together, and broken chains (check_chains).
[[nodiscard]] ods::Result<ods::contracts::CheckReport> check_postgres(PgConnection& connection,
                                                                      const std::string& schema_version);

}  // namespace ods::state::internal
