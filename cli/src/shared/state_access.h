#pragma once
// Reading this project's state: the scope and its head snapshot, parsed.
#include <optional>
#include <string>

#include "context.h"
#include "ods/contracts/state_store.h"
#include "ods/planner/snapshot.h"
#include "ods/state/state_commit.h"

namespace ods::cli {

// The dbt project's name from <project-dir>/dbt_project.yml (top-level `name:`).
// Errors: dbt::read_project_file's ("usage": the file missing, malformed, or without a name).
[[nodiscard]] Result<std::string> project_name(const CommandContext& ctx);

// "<project>/<target or default>" for this project.
[[nodiscard]] Result<std::string> scope_for(const CommandContext& ctx);

// The head of a scope and reading it: shared with the operator (ods/state/state_commit.h).
using state::Head;
using state::read_head;

}  // namespace ods::cli
