#pragma once
// The check behind OpenOptions::refuse_writable_credential. Internal to providers/state.
#include "ods/base/result.h"
#include "postgres_connection.h"

namespace ods::state::internal {

// Succeeds when the session's role can only read the state tables (postgres_state_tables()).
// Errors: "writable_credential" naming the role, what it may do and on which tables; exec()'s.
[[nodiscard]] ods::Result<void> refuse_writable_credential(PgConnection& connection);

}  // namespace ods::state::internal
