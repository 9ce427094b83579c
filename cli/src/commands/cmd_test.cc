// `ods state test`: compile, probe, decide which checks run (ADR-0013 "Tested builds" #220 and
// "Tested sources" #232), run exactly those through `dbt test`, record passes and failures
// without touching any build.
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "dbt_steps.h"
#include "flag_names.h"
#include "metrics_delivery.h"
#include "ods/planner/checks.h"
#include "ods/planner/json_io.h"
#include "plan_format.h"
#include "project_loader.h"
#include "run_preparation.h"
#include "state_access.h"
#include "test_recording.h"
#include "wording.h"

namespace ods::cli {

namespace {

using planner::CheckAction;

// dbt's selection for the entries to run: node names and source:<source>.<table>. Eager
// indirect selection then picks every data and unit test that reads one of them, which is
// each entry's whole set of checks (a test reading two nodes runs when either is tested).
std::vector<std::string> dbt_test_args(const planner::CheckPlan& checks, const std::vector<std::string>& target_path) {
  std::vector<std::string> args{"test", "--indirect-selection", "eager", kFlagSelect};
  for (auto& name : check_selection(checks)) args.push_back(std::move(name));
  args.insert(args.end(), target_path.begin(), target_path.end());
  return args;
}

std::vector<std::string> ids_to_run(const planner::CheckPlan& checks) {
  std::vector<std::string> ids;
  for (const auto& e : checks.entries)
    if (e.action == CheckAction::run) ids.push_back(e.id);
  return ids;
}

}  // namespace

int cmd_test(const ParsedArgs& args, CommandContext& ctx) {
  const auto started = std::chrono::steady_clock::now();
  if (args.has(kFlagDryRun) && (args.has(kFlagMetricsFile) || args.has(kFlagPushgateway)))
    return report(ctx, {"usage", std::string(kFlagMetricsFile) + " and " + kFlagPushgateway +
                                     " are for test runs that record; a dry run counts nothing"});
  // The store is opened before dbt runs: one this command can't write stops it here, not after dbt test.
  auto store = open_store(ctx, false, /*read_only=*/args.has(kFlagDryRun));
  if (!store && store.error().code != "not_found") return report(ctx, store.error());
  if (store && !args.has(kFlagDryRun)) {
    if (auto writable = check_can_record(**store, /*before_dbt=*/true); !writable) return report(ctx, writable.error());
  }
  auto prepared = prepare_run(args, ctx);
  if (!prepared) return prepared.error();
  DbtSession& session = *prepared->session;
  LoadedProject& project = prepared->project;
  planner::CheckOptions options;
  if (prepared->selection) options.selected = std::move(prepared->selection->checks);

  // Checks vouch for recorded builds: without state there is nothing to test against.
  const std::string scope = planner::scope_of(project.inputs.project, project.inputs.target);
  const Error nothing_recorded{"nothing_recorded", "nothing is recorded for " + scope +
                                                       " yet, so there is no build to test; run `ods state run` "
                                                       "(or dbt build and `ods state record`) first"};
  if (!store) return report(ctx, nothing_recorded);
  auto head = read_head(**store, scope);
  if (!head) return report(ctx, head.error());
  if (!*head) return report(ctx, nothing_recorded);

  TestRun run{scope, **store, std::move(**head), {}, {}, started};
  GatheredEvidence evidence = prepared->probe(ctx, ctx.env.now());
  for (const auto& source : project.inputs.sources)
    if (source.version) run.source_versions[source.id] = *source.version;
  run.checks = planner::plan_checks(project.inputs, &run.head.snapshot, options);
  for (const auto& w : evidence.warnings) run.checks.warnings.push_back(w);
  if (ctx.format == "text") print_check_table(*ctx.out, run.checks);
  const int to_run = run.checks.count(CheckAction::run), skipped = run.checks.count(CheckAction::skip);

  if (args.has(kFlagDryRun) || to_run == 0) {
    if (!args.has(kFlagDryRun))
      step(ctx, "nothing to test (" + std::to_string(skipped) + " skipped); dbt test not started");
    return deliver_metrics(ctx, args, run.store, scope, std::nullopt,
                           finish_without_tests(ctx, run, args.has(kFlagDryRun)));
  }
  step(ctx, "testing " + std::to_string(to_run) + " of " + std::to_string(to_run + skipped) +
                " nodes and sources with checks (" + count_of(count_checks(project, ids_to_run(run.checks)), "check") +
                "), skipping " + std::to_string(skipped));
  auto tested = session.run_with_progress(dbt_test_args(run.checks, prepared->target_path), "dbt test");
  if (!tested) return report(ctx, tested.error());
  if (tested->interrupted) {
    *ctx.err << "ods: interrupted: dbt stopped; nothing recorded, the state is as it was before this run\n";
    return kExitInterrupted;
  }
  return deliver_metrics(ctx, args, run.store, scope, std::nullopt,
                         record_test_run(ctx, run, project, session.one_parse(), *tested));
}

}  // namespace ods::cli
