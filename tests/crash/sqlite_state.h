#pragma once
// Crash tests: what an SQLite state database holds, read straight from its tables (not
// through ods), so a check does not trust the code it checks.
#include <filesystem>

#include "crash/recorded_state.h"

namespace ods::testing {

// Reads `path` read-only; an absent file is an empty state. Fills `error` (and nothing else)
// when a table can't be read or a document is not JSON.
RecordedState read_sqlite_state(const std::filesystem::path& path);

}  // namespace ods::testing
