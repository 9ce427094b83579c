#pragma once
// A command's selection (--select, --exclude, --selector), resolved by dbt: the refusals of the
// methods ODS answers itself, checked before any dbt call, then one `dbt ls` through the
// command's dbt session, on the parse it holds (ods/dbt/selection.h). For `ods state plan`,
// `run` (and --dry-run), `test` and `ods pod`.
#include <string>
#include <vector>

#include "cli_args.h"
#include "context.h"
#include "dbt_session.h"
#include "ods/dbt/selection.h"
#include "ods/planner/inputs.h"

namespace ods::cli {

// The flags as given (a flag the command does not take reads as "").
dbt::SelectionFlags selection_flags(const ParsedArgs& args);

// dbt::refuse_foreign_methods with the project's selectors.yml (ctx.project_dir). Runs nothing.
[[nodiscard]] Result<void> refuse_foreign_selection(const CommandContext& ctx, const dbt::SelectionFlags& flags);

// `dbt ls` through `session` (with `extra`, e.g. --target-path), the ids it printed sorted into
// `inputs`' nodes and checks (dbt::selection_among), with a step line saying how many nodes were
// selected and how long dbt took. Errors: dbt::list_selected's.
[[nodiscard]] Result<dbt::ResolvedSelection> resolve_selection(const CommandContext& ctx, DbtSession& session,
                                                               const dbt::SelectionFlags& flags,
                                                               const planner::ProjectInputs& inputs,
                                                               const std::vector<std::string>& extra);

}  // namespace ods::cli
