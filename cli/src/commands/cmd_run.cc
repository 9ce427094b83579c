// `ods state run`: compile, probe, plan, build only the BUILD set through dbt (in waves when early
// cutoff may spare work: cutoff_run.h), record the run.
#include <chrono>
#include <iostream>

#include "commands.h"
#include "cutoff_run.h"
#include "dbt_steps.h"
#include "flag_names.h"
#include "metrics_delivery.h"
#include "next_run_plan.h"
#include "ods/base/elapsed.h"
#include "ods/planner/checks.h"
#include "ods/planner/json_io.h"
#include "ods/run/build_selection.h"
#include "plan_format.h"
#include "project_loader.h"
#include "run_preparation.h"
#include "run_recording.h"
#include "state_access.h"

namespace ods::cli {

namespace {

using Clock = std::chrono::steady_clock;

// One line on the checks beside the plan: those run again (by name, with the first reason's
// code) and how many are not re-run because they passed on the current build or data.
void print_check_line(std::ostream& out, const planner::CheckPlan& checks) {
  const int again = checks.count(planner::CheckAction::run), skipped = checks.count(planner::CheckAction::skip);
  if (again + skipped == 0) return;
  out << "Checks: " << again << " to run again";
  std::string sep = " (";
  for (const auto& e : checks.entries) {
    if (e.action != planner::CheckAction::run) continue;
    out << sep << e.name << ": " << (e.reasons.empty() ? "" : e.reasons.front().code);
    sep = ", ";
  }
  out << (again > 0 ? ")" : "") << ", " << skipped
      << " not re-run (they passed on the current build or data); the BUILD nodes' checks run with them.\n";
}

}  // namespace

int cmd_run(const ParsedArgs& args, CommandContext& ctx) {
  const auto started = Clock::now();
  if (args.has(kFlagDryRun) && (args.has(kFlagMetricsFile) || args.has(kFlagPushgateway)))
    return report(ctx, {"usage", std::string(kFlagMetricsFile) + " and " + kFlagPushgateway +
                                     " are for runs that record; a dry run counts nothing"});
  auto mode = run::cutoff_mode_from_string(args.has(kFlagCutoff) ? args.get(kFlagCutoff) : "auto");
  if (!mode) return report(ctx, mode.error());
  auto next = plan_next_run(args, ctx, args.has(kFlagDryRun) ? NextRunUse::dry_run : NextRunUse::run);
  if (!next) return next.error();
  const std::vector<std::string>& target_path = next->prepared.target_path;  // dbt's default unless given
  LoadedProject& project = next->prepared.project;
  const std::string& scope = next->scope;
  std::optional<Head>& head = next->head;
  planner::ExecutionPlan& plan = next->plan;
  const int to_build = plan.count(planner::Action::build), to_reuse = plan.count(planner::Action::reuse);
  if (ctx.format == "text") print_plan_table(*ctx.out, plan);

  // Checks that have not passed on what they vouch for run again before their readers, and
  // gate them while they fail, as dbt build does (issue 27): even when nothing builds.
  planner::CheckPlan checks =
      run::run_checks(project.inputs, head ? &head->snapshot : nullptr, plan, next->checks_selected);
  if (ctx.format == "text") print_check_line(*ctx.out, checks);
  if (args.has(kFlagDryRun)) return finish_dry_run(ctx, plan, checks, next->store.get());
  if (!head) step(ctx, first_state_line(ctx, scope));
  auto check_selection = run::check_selection(checks);
  const std::size_t to_check = check_selection.size();
  RunContext run_ctx{project,
                     scope,
                     *next->store,
                     std::move(head),
                     std::move(plan),
                     std::move(checks),
                     std::move(next->evidence),
                     next->timings,
                     started};
  run_ctx.compiled_by_build = !next->prepared.deferred_compiles.empty();
  run_ctx.exact_evidence_seconds = run_ctx.evidence.exact_seconds;
  run_ctx.exact_evidence_skipped = run_ctx.evidence.exact_skipped;
  run_ctx.dbt = next->prepared.session.get();
  run_ctx.incremental_keys_set_aside = next->prepared.incremental_keys_set_aside;
  run_ctx.parse_fast_path = next->prepared.parse_fast_path_outcome;
  if (to_build == 0 && to_check == 0) {
    step(ctx, "all " + std::to_string(to_reuse) + " nodes reused and their checks passed; dbt build not started");
    return deliver_metrics(ctx, args, run_ctx.store, scope, run_ctx.metrics, finish_without_build(ctx, run_ctx));
  }
  step(ctx, "building " + std::to_string(to_build) + " of " + std::to_string(to_build + to_reuse) + " nodes, reusing " +
                std::to_string(to_reuse) +
                (to_check == 0 ? "" : "; running the checks of " + std::to_string(to_check) + " nodes and sources"));
  WaveSettings waves{*mode,
                     target_path,
                     std::move(check_selection),
                     project.adapter_type,
                     next->prepared.warehouse,
                     args.has(kFlagWriteManifest),
                     next->prepared.manifest};
  const int code = build_in_waves(ctx, *next->prepared.session, project, std::move(next->options), run_ctx, waves);
  if (code == kExitInterrupted) return code;
  return deliver_metrics(ctx, args, run_ctx.store, scope, run_ctx.metrics, code);
}

}  // namespace ods::cli
