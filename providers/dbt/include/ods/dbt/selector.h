#pragma once
// Resolves dbt-style --select / --exclude expressions to node ids, over the planner's inputs.
// Supported: a space-separated union of `name`, unique id, `source:<source>[.<table>]`,
// `tag:<tag>`, `path:<path>` (or a bare path with a '/'), `config.<key>:<value>`
// (selector_methods.h: read from the project's manifest.json, only when used), each with
// optional graph operators `+x` / `N+x` (ancestors) and `x+` / `x+N` (descendants).
// Anything else (other methods, `a,b` intersections, `@x`) is refused with a message naming
// the selector and the flag (rule 6).
#include <filesystem>
#include <string>
#include <vector>

#include "ods/base/result.h"
#include "ods/planner/inputs.h"

namespace ods::dbt {

// `manifest`: the manifest.json that tag:, path: and config. selectors read (empty: they are
// refused); `flag`: the option named in errors.
[[nodiscard]] Result<std::vector<std::string>> resolve_selection(const planner::ProjectInputs& inputs,
                                                                 const std::string& expression,
                                                                 const std::filesystem::path& manifest = {},
                                                                 const std::string& flag = "--select");

// The same expression for `ods state test`: the node ids plus the source ids it names
// (`source:x`) or reaches as ancestors (`+x`), as dbt selects sources' tests. Sorted.
[[nodiscard]] Result<std::vector<std::string>> resolve_check_selection(const planner::ProjectInputs& inputs,
                                                                       const std::string& expression,
                                                                       const std::filesystem::path& manifest = {},
                                                                       const std::string& flag = "--select");

struct ResolvedSelection {
  std::vector<std::string> nodes;   // the nodes to plan, sorted
  std::vector<std::string> checks;  // the node and source ids whose checks count, sorted
};

// --select (everything when empty) minus --exclude, as dbt reads the two, for `ods state run`,
// `ods state test` and `ods pod`.
[[nodiscard]] Result<ResolvedSelection> resolve_select_exclude(const planner::ProjectInputs& inputs,
                                                               const std::string& select, const std::string& exclude,
                                                               const std::filesystem::path& manifest);

}  // namespace ods::dbt
