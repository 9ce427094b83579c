// `ods state plan` (from the artifacts in target/) and `ods state explain` (the next run's
// decision, next_run_plan.h): plan against the recorded state; change nothing.
#include <algorithm>
#include <functional>
#include <future>
#include <iostream>
#include <nlohmann/json.hpp>

#include "command_summary.h"
#include "commands.h"
#include "dbt_selection.h"
#include "dbt_steps.h"
#include "flag_names.h"
#include "next_run_plan.h"
#include "ods/planner/json_io.h"
#include "plan_format.h"
#include "plan_markdown.h"
#include "project_loader.h"
#include "state_access.h"

namespace ods::cli {

namespace {

// `doc` (a plan's JSON document as the planner writes it) with `"notice": notice` among its
// top-level members (after "entries"). Strings in the document have their newlines escaped, so
// the only "\n  \"scope\": " is the top-level member's.
std::string with_notice(std::string doc, const std::string& notice) {
  if (notice.empty()) return doc;
  const auto scope = doc.find("\n  \"scope\": ");
  if (scope != std::string::npos) doc.insert(scope, "\n  \"notice\": " + nlohmann::json(notice).dump() + ",");
  return doc;
}

// --format json|markdown, --summary, --json-file for a plan.
bool deliver_plan_report(const CommandContext& ctx, const planner::ExecutionPlan& plan, const std::string& notice) {
  const CommandSummary summary = planned_summary(ctx, plan, "plan", false, time_saved_seconds(ctx, plan));
  return deliver_report(
      ctx, [&] { return with_notice(plan_document(plan, summary), notice); },
      [&] { return markdown_input(plan, summary); });
}

// The recorded head of `project`'s scope in ctx's state store; nullopt when nothing is recorded
// for it. Errors: the store's; "not_found" when there is no store (a plan against nothing would
// say every node never_built, as if a wrong --state or --project-dir were a first run).
Result<std::optional<Head>> read_recorded_head(const CommandContext& ctx, const std::string& project) {
  auto store = open_store(ctx, false, /*read_only=*/true);
  if (!store) return std::unexpected(without_state(store.error()));
  return read_settled_head(ctx, **store, project, ctx.target, /*records=*/false);
}

// Plans the project in ctx against its recorded state. Reads only.
// Without --select, the recorded state is read on a second thread while the project is
// assembled: the store is opened only once the artifacts are read and accepted, as before.
// With a selection (--select, --exclude, --selector) it is read after dbt resolved the selection
// (one `dbt ls` on the project, dbt_selection.h; a refused method before it), so a bad selection
// leaves the store unopened.
// The plan's notice: one sentence when the artifacts cannot show what a run would see (nodes
// without compiled code, as a selective `dbt build` or a `dbt parse` leaves them; no source
// measured, without `dbt source freshness`); "" when they can.
std::string blind_spots(const planner::ProjectInputs& inputs) {
  std::size_t uncompiled = 0;
  for (const auto& node : inputs.nodes) {
    // The dbt provider's words for a node without compiled code (manifest_entries.cc).
    const bool compiled =
        std::ranges::none_of(node.incomplete, [](const std::string& why) { return why.ends_with("run dbt compile"); });
    uncompiled += compiled ? 0 : 1;
  }
  bool measured = false;
  for (const auto& source : inputs.sources) measured |= source.version.has_value();
  const bool unmeasured = !inputs.sources.empty() && !measured;
  if (uncompiled == 0 && !unmeasured) return "";
  std::string what;
  if (uncompiled > 0)
    what = std::to_string(uncompiled) + " of " + std::to_string(inputs.nodes.size()) +
           " nodes have no compiled code in target/manifest.json (the last dbt command built or compiled only a "
           "selection)";
  if (unmeasured)
    what += std::string(what.empty() ? "" : " and ") + "no source has evidence of its data (no dbt source freshness)";
  return "This plan sees only the artifacts in target/, where " + what +
         ", so those nodes plan as BUILD: `ods state run --dry-run` shows what the next run would do.";
}

Result<planner::ExecutionPlan> make_plan(CommandContext& ctx, const ParsedArgs& args, std::string* notice) {
  std::future<Result<std::optional<Head>>> head_read;
  std::function<void(const std::string&)> before_assembly;
  const dbt::SelectionFlags selected = selection_flags(args);
  if (selected.any()) {
    ODS_TRY_VOID(refuse_foreign_selection(ctx, selected));
  } else {
    before_assembly = [&](const std::string& project_name) {
      head_read = std::async(std::launch::async, read_recorded_head, std::cref(ctx), project_name);
    };
  }
  auto project = load_project(ctx, ProjectUse::plan_only, std::move(before_assembly));
  if (!project) return std::unexpected(project.error());
  planner::PlanOptions options;
  options.now = ctx.env.now();
  if (selected.any()) {
    auto session = make_dbt_session(ctx, dbt_options(args, ctx));
    ODS_TRY(auto selection, resolve_selection(ctx, *session, selected, project->inputs, target_path_flags(args, ctx)));
    options.selected = std::move(selection.nodes);
  }
  auto read = head_read.valid() ? head_read.get() : read_recorded_head(ctx, project->inputs.project);
  if (!read) return std::unexpected(read.error());
  std::optional<Head> head = std::move(*read);
  auto plan = planner::plan(project->inputs, head ? &head->snapshot : nullptr, options);
  if (notice) *notice = blind_spots(project->inputs);
  release_at_exit(ctx, std::move(*project));
  if (head) release_at_exit(ctx, std::move(*head));
  return plan;
}

}  // namespace

int cmd_plan(const ParsedArgs& args, CommandContext& ctx) {
  std::string notice;
  auto plan = make_plan(ctx, args, &notice);
  if (!plan) return report(ctx, plan.error());
  if (ctx.format == "text") print_plan_table(*ctx.out, *plan, notice);
  ctx.out->flush();
  const bool delivered = !report_wanted(ctx) || deliver_plan_report(ctx, *plan, notice);
  release_at_exit(ctx, std::move(*plan));
  return delivered ? kExitOk : kExitFailed;
}

int cmd_explain(const ParsedArgs& args, CommandContext& ctx) {
  if (args.positionals.size() != 1)
    return report(ctx, {"usage", "usage: ods state explain NODE (a name or unique id)"});
  const std::string& wanted = args.positionals[0];
  // The decision the next `ods state run` makes, made as it makes it (next_run_plan.h): not
  // the artifacts' alone, which the compile key leaves without compiled code.
  auto next = plan_next_run(args, ctx, NextRunUse::inspect);
  if (!next) return next.error();
  for (const auto& e : next->plan.entries) {
    if (e.name != wanted && e.id != wanted) continue;
    if (ctx.format == "json") {
      planner::ExecutionPlan one{next->plan.scope, {e}, e.action == planner::Action::build ? e.name : "", {}};
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
