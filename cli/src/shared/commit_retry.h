#pragma once
// Committing a run's outcome when other writers share the scope: ods::state::commit_outcome
// (providers/state, shared with the operator's callback server) under the CLI's names.
#include "ods/state/state_commit.h"
#include "state_access.h"

namespace ods::cli {

using state::commit_outcome;
using state::Committed;
using state::kCommitAttempts;

}  // namespace ods::cli
