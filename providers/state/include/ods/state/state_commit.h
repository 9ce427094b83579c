#pragma once
// Reading a scope's head and committing a run's outcome on it, for every writer of state (the
// `ods` commands and the operator's callback server): a lost compare-and-swap ("conflict")
// re-reads the head and re-applies this run's outcome on top of it with planner::record, so
// what the other writer recorded is kept and this run's successful builds are added; then
// commits again.
#include <optional>
#include <ostream>
#include <string>

#include "ods/base/result.h"
#include "ods/contracts/state_store.h"
#include "ods/planner/planner.h"
#include "ods/planner/snapshot.h"

namespace ods::state {

struct Head {
  contracts::StoredSnapshot stored;  // without its document text (parsed into `snapshot`)
  planner::StateSnapshot snapshot;
};

// The head of `scope`, parsed; nullopt when nothing is recorded.
// Errors: the store's, and "corrupt"/"newer_schema" from the snapshot document.
[[nodiscard]] Result<std::optional<Head>> read_head(contracts::StateStore& store, const std::string& scope);

// How many commits one run tries before giving up with "conflict".
inline constexpr int kCommitAttempts = 5;

struct Committed {
  contracts::StoredSnapshot stored;  // without its document
  planner::StateSnapshot snapshot;   // what was committed
};

// Records `outcome` on top of `head` (the state the run planned against) and commits it.
// Each retry after a conflict is told on `err` ("ods: … retrying (2 of 5)").
// Errors: "conflict" when every attempt lost the race; "stale_run" when another writer
// meanwhile recorded a run that started after this one (recording would go back in time);
// the store's and planner::record's others.
[[nodiscard]] Result<Committed> commit_outcome(contracts::StateStore& store, const std::string& scope,
                                               const planner::ProjectInputs& inputs, std::optional<Head> head,
                                               const planner::RunOutcome& outcome, std::ostream& err);

}  // namespace ods::state
