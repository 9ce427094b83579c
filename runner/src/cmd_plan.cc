// `ods state plan` and `ods state explain`: plan against the recorded state; change nothing.
#include <iostream>

#include "commands.h"
#include "ods/planner/json_io.h"
#include "plan_format.h"
#include "project_loader.h"
#include "selector.h"
#include "state_access.h"

namespace ods::cli {

namespace {

// Plans the project in ctx against its recorded state. Reads only.
Result<planner::ExecutionPlan> make_plan(CommandContext& ctx, const ParsedArgs& args) {
  auto project = load_project(ctx, ProjectUse::plan_only);
  if (!project) return std::unexpected(project.error());
  planner::PlanOptions options;
  options.now = ctx.env.now();
  if (args.has("--select")) {
    auto selected = resolve_selection(project->inputs, args.get("--select"));
    if (!selected) return std::unexpected(selected.error());
    options.selected = *selected;
  }
  std::optional<Head> head;
  auto store = open_store(ctx, false);
  if (store) {
    auto h = read_head(**store, planner::scope_of(project->inputs.project, project->inputs.target));
    if (!h) return std::unexpected(h.error());
    head = std::move(*h);
  } else if (store.error().code != "not_found") {
    return std::unexpected(store.error());
  }
  auto plan = planner::plan(project->inputs, head ? &head->snapshot : nullptr, options);
  release_at_exit(ctx, std::move(*project));
  if (head) release_at_exit(ctx, std::move(*head));
  return plan;
}

}  // namespace

int cmd_plan(const ParsedArgs& args, CommandContext& ctx) {
  auto plan = make_plan(ctx, args);
  if (!plan) return report(ctx, plan.error());
  if (ctx.format == "json") {
    planner::write_json(*ctx.out, *plan, true);
    *ctx.out << "\n";
  } else {
    print_plan_table(*ctx.out, *plan);
  }
  ctx.out->flush();
  release_at_exit(ctx, std::move(*plan));
  return kExitOk;
}

int cmd_explain(const ParsedArgs& args, CommandContext& ctx) {
  if (args.positionals.size() != 1)
    return report(ctx, {"usage", "usage: ods state explain NODE (a name or unique id)"});
  const std::string& wanted = args.positionals[0];
  auto plan = make_plan(ctx, args);
  if (!plan) return report(ctx, plan.error());
  for (const auto& e : plan->entries) {
    if (e.name != wanted && e.id != wanted) continue;
    if (ctx.format == "json") {
      planner::ExecutionPlan one{plan->scope, {e}, e.action == planner::Action::build ? e.name : "", {}};
      *ctx.out << planner::to_json(one, true) << "\n";
    } else {
      print_entry_detail(*ctx.out, e);
    }
    return kExitOk;
  }
  return report(
      ctx, {"not_found", "no node named '" + wanted + "' in the plan (ephemeral models and tests are not planned)"});
}

}  // namespace ods::cli
