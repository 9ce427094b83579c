#pragma once
// Crash tests: what a PostgreSQL state store holds, read straight from its tables with psql
// (not through ods), so a check does not trust the code it checks. Each snapshot's document is
// put back together here from its skeleton, manifest, chunks and pieces
// (docs/postgres-state.md#storage-grows-with-what-changed).
#include "crash/recorded_state.h"
#include "harness/postgres_server.h"

namespace ods::testing {

// Reads the store in `server`'s database (one statement, so one consistent view); a database without
// the store's tables is an empty state. Fills `error` (and nothing else) when the server can't
// be queried, a table can't be read or a part of a document is missing or not JSON.
RecordedState read_postgres_state(const PostgresServer& server);

}  // namespace ods::testing
