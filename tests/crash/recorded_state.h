#pragma once
// Crash tests: what a state store holds (snapshots, heads, the run ledger), as read straight
// from its tables by sqlite_state.h or postgres_state.h, and the history check on it.
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
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

// What is wrong with the snapshots as a history: "" when they form one chain per scope (the
// first without a parent, each next one the child of the one before, the head the newest);
// else a sentence saying which snapshot breaks it.
std::string chain_problem(const RecordedState& state);

}  // namespace ods::testing
