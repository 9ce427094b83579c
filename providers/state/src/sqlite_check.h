#pragma once
// The read-only integrity check of a SQLite state database (StateStore::check).
#include <string>

#include "ods/base/result.h"
#include "ods/contracts/state_store.h"
#include "sqlite_connection.h"

namespace ods::state::internal {

// Inside one read transaction: PRAGMA integrity_check and foreign_key_check; every
// document is JSON and matches its digest; every snapshot has its document; every head
// names an existing snapshot and each scope is one intact chain (check_chains). Damage is
// reported as problems; errors only when the database can't be read at all ("unavailable",
// "io"). Writes nothing.
[[nodiscard]] ods::Result<ods::contracts::CheckReport> check_database(Connection& connection,
                                                                      const std::string& schema_version);

}  // namespace ods::state::internal
