#pragma once
// Resolves a dbt-style --select expression to node ids, over the planner's inputs.
// Supported: space-separated union of `name`, unique id, `source:<source>[.<table>]`, each
// with optional graph operators `+x` / `N+x` (ancestors) and `x+` / `x+N` (descendants).
// Anything else is refused with a message naming the selector (rule 6).
#include <string>
#include <vector>

#include "ods/planner/inputs.h"
#include "ods/planner/result.h"

namespace ods::cli {

[[nodiscard]] Result<std::vector<std::string>> resolve_selection(const planner::ProjectInputs& inputs,
                                                                 const std::string& expression);

// The same expression for `ods state test`: the node ids plus the source ids it names
// (`source:x`) or reaches as ancestors (`+x`), as dbt selects sources' tests. Sorted.
[[nodiscard]] Result<std::vector<std::string>> resolve_check_selection(const planner::ProjectInputs& inputs,
                                                                       const std::string& expression);

}  // namespace ods::cli
