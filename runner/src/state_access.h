#pragma once
// Reading this project's state: the scope and its head snapshot, parsed.
#include <optional>
#include <string>

#include "context.h"
#include "ods/contracts/state_store.h"
#include "ods/planner/snapshot.h"

namespace ods::cli {

// The dbt project's name from <project-dir>/dbt_project.yml (top-level `name:`).
// Errors: "usage" when the file is missing or has no name.
[[nodiscard]] Result<std::string> project_name(const CommandContext& ctx);

// "<project>/<target or default>" for this project.
[[nodiscard]] Result<std::string> scope_for(const CommandContext& ctx);

struct Head {
  contracts::StoredSnapshot stored;  // without its document text (parsed into `snapshot`)
  planner::StateSnapshot snapshot;
};

// The head of `scope`, parsed; nullopt when nothing is recorded.
// Errors: the store's, and "corrupt"/"newer_schema" from the snapshot document.
[[nodiscard]] Result<std::optional<Head>> read_head(contracts::StateStore& store, const std::string& scope);

}  // namespace ods::cli
