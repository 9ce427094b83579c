#pragma once
// Crash tests: what an SQLite state database holds, read straight from its tables (not
// through ods), so a check does not trust the code it checks.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ods::testing {

struct RecordedSnapshot {
  long long seq = 0;
  std::string id;
  std::string parent_id;  // "" for the first
  std::string scope;
  std::string run_id;
  nlohmann::json document;  // the snapshot JSON as committed
};

struct RecordedState {
  std::vector<RecordedSnapshot> snapshots;                 // in commit order
  std::vector<std::pair<std::string, std::string>> heads;  // scope, snapshot id
  std::vector<std::string> run_ids;                        // the run ledger, in order
  std::string error;                                       // non-empty when the database could not be read
};

// Reads `path` read-only; an absent file is an empty state. Fills `error` (and nothing else)
// when a table can't be read or a document is not JSON.
RecordedState read_sqlite_state(const std::filesystem::path& path);

// What is wrong with the snapshots as a history: "" when they form one chain per scope (the
// first without a parent, each next one the child of the one before, the head the newest);
// else a sentence saying which snapshot breaks it.
std::string chain_problem(const RecordedState& state);

}  // namespace ods::testing
