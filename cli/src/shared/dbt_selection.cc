#include "dbt_selection.h"

#include <chrono>
#include <cstdio>

#include "dbt_steps.h"
#include "flag_names.h"
#include "ods/base/elapsed.h"

namespace ods::cli {

dbt::SelectionFlags selection_flags(const ParsedArgs& args) {
  return {args.get(kFlagSelect), args.get(kFlagExclude), args.get(kFlagSelector)};
}

Result<void> refuse_foreign_selection(const CommandContext& ctx, const dbt::SelectionFlags& flags) {
  return dbt::refuse_foreign_methods(flags, ctx.project_dir / "selectors.yml");
}

Result<dbt::ResolvedSelection> resolve_selection(const CommandContext& ctx, DbtSession& session,
                                                 const dbt::SelectionFlags& flags, const planner::ProjectInputs& inputs,
                                                 const std::vector<std::string>& extra) {
  const auto started = std::chrono::steady_clock::now();
  ODS_TRY(auto ids, dbt::list_selected(session, flags, extra));
  auto selection = dbt::selection_among(inputs, ids);
  char took[32];
  std::snprintf(took, sizeof took, "%.1f", seconds_since(started));
  step(ctx, "dbt selected " + std::to_string(selection.nodes.size()) + " of " + std::to_string(inputs.nodes.size()) +
                " nodes (dbt ls, " + took + " s)");
  return selection;
}

}  // namespace ods::cli
