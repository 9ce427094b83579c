// `ods state run`: compile, probe, plan, build only the BUILD set through dbt (in waves when early
// cutoff may spare work: cutoff_run.h), record the run.
#include <chrono>
#include <future>
#include <iostream>

#include "commands.h"
#include "cutoff_run.h"
#include "dbt_steps.h"
#include "flag_names.h"
#include "metrics_delivery.h"
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
  // The store is opened first: the compile reads the recorded compile keys (keyed_compile.h).
  auto store = open_store(ctx, !args.has(kFlagDryRun), /*read_only=*/args.has(kFlagDryRun));
  if (!store && !(args.has(kFlagDryRun) && store.error().code == "not_found")) return report(ctx, store.error());
  std::optional<Head> early_head;
  bool head_read_early = false;
  const RecordedSnapshot recorded = [&](const planner::ProjectInputs& parsed) -> Result<const planner::StateSnapshot*> {
    if (!store) return nullptr;
    auto h = read_settled_head(ctx, **store, parsed.project, parsed.target, !args.has(kFlagDryRun));
    if (!h) return std::unexpected(h.error());
    early_head = std::move(*h);
    head_read_early = true;
    return early_head ? &early_head->snapshot : nullptr;
  };
  auto prepared = prepare_run(args, ctx, DeclaredPackages::leave, CompileDeferral::until_build, recorded);
  if (!prepared) return prepared.error();
  const std::vector<std::string>& target_path = prepared->target_path;  // dbt's default unless given
  LoadedProject& project = prepared->project;
  RunTimings timings;
  timings.compile = prepared->compile_seconds;

  auto t = Clock::now();
  planner::PlanOptions options;
  options.now = ctx.env.now();
  std::optional<std::vector<std::string>> checks_selected;
  if (prepared->selection) {
    options.selected = std::move(prepared->selection->nodes);
    checks_selected = std::move(prepared->selection->checks);
  }
  const std::string scope = planner::scope_of(project.inputs.project, project.inputs.target);
  // The recorded state (tens of MB to parse at 10k nodes) is read on a thread while the probe's
  // dbt call runs; the store is thread-safe, and planning waits for it below.
  std::future<Result<std::optional<Head>>> head_read;
  if (store && args.has(kFlagPushgateway)) announce_scope(ctx, **store, scope, args.get(kFlagPushgateway));
  if (store && !head_read_early)
    head_read = std::async(std::launch::async, [&ctx, &s = **store, &project, &args] {
      return read_settled_head(ctx, s, project.inputs.project, project.inputs.target, !args.has(kFlagDryRun));
    });
  timings.load = prepared->load_seconds + seconds_since(t);

  GatheredEvidence evidence = prepared->probe(ctx, options.now);
  timings.probe = prepared->probe_seconds;
  options.relations_exist = evidence.relations_exist;
  if (int code = prepared->settle_compiles(ctx, evidence); code != kExitOk) return code;

  t = Clock::now();
  std::optional<Head> head;
  if (store && head_read_early) {
    head = std::move(early_head);
  } else if (store) {
    auto h = head_read.get();
    if (!h) return report(ctx, h.error());
    head = std::move(*h);
  }
  auto plan = planner::plan(project.inputs, head ? &head->snapshot : nullptr, options);
  if (!plan) return report(ctx, plan.error());
  for (const auto& w : evidence.warnings) plan->warnings.push_back(w);
  timings.plan = seconds_since(t);
  const int to_build = plan->count(planner::Action::build), to_reuse = plan->count(planner::Action::reuse);
  if (ctx.format == "text") print_plan_table(*ctx.out, *plan);

  // Checks that have not passed on what they vouch for run again before their readers, and
  // gate them while they fail, as dbt build does (issue 27): even when nothing builds.
  planner::CheckPlan checks = run::run_checks(project.inputs, head ? &head->snapshot : nullptr, *plan, checks_selected);
  if (ctx.format == "text") print_check_line(*ctx.out, checks);
  if (args.has(kFlagDryRun)) return finish_dry_run(ctx, *plan, checks, store ? store->get() : nullptr);
  if (!head) step(ctx, first_state_line(ctx, scope));
  auto check_selection = run::check_selection(checks);
  const std::size_t to_check = check_selection.size();
  RunContext run_ctx{
      project, scope,  **store, std::move(head), std::move(*plan), std::move(checks), std::move(evidence),
      timings, started};
  run_ctx.compiled_by_build = !prepared->deferred_compiles.empty();
  run_ctx.dbt = prepared->session.get();
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
                     prepared->warehouse,
                     args.has(kFlagWriteManifest)};
  const int code = build_in_waves(ctx, *prepared->session, project, std::move(options), run_ctx, waves);
  if (code == kExitInterrupted) return code;
  return deliver_metrics(ctx, args, run_ctx.store, scope, run_ctx.metrics, code);
}

}  // namespace ods::cli
