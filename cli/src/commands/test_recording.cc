#include "test_recording.h"

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

#include "command_summary.h"
#include "commands.h"
#include "commit_retry.h"
#include "ods/base/elapsed.h"
#include "ods/base/sha256.h"
#include "ods/planner/json_io.h"
#include "ods/planner/planner.h"
#include "ods/run/run_details.h"
#include "plan_markdown.h"
#include "project_as_run.h"
#include "project_loader.h"
#include "recording_steps.h"

namespace ods::cli {

using nlohmann::json;

namespace {

int count_of(const std::map<std::string, int>& statuses, std::initializer_list<const char*> keys) {
  int n = 0;
  for (const char* k : keys)
    if (auto it = statuses.find(k); it != statuses.end()) n += it->second;
  return n;
}

// Nodes and sources whose checks all passed (true) or of which one failed (false).
json result_counts(const LoadedRun& loaded, const planner::CheckPlan& checks) {
  int passed = 0, failed = 0;
  for (const auto* results : {&loaded.outcome.node_tests_passed, &loaded.outcome.source_tests_passed}) {
    for (const auto& [id, ok] : *results) (ok ? passed : failed) += 1;
  }
  const int checks_passed = count_of(loaded.statuses, {"pass", "warn"});
  const int checks_failed = count_of(loaded.statuses, {"fail", "error"});
  int checks_total = 0;
  for (const auto& [status, n] : loaded.statuses) checks_total += n;
  return {{"passed", passed},
          {"failed", failed},
          {"skipped", checks.count(planner::CheckAction::skip)},
          {"checks",
           {{"total", checks_total},
            {"passed", checks_passed},
            {"failed", checks_failed},
            {"other", checks_total - checks_passed - checks_failed}}},
          {"summary", loaded.summary}};
}

CommandSummary test_summary(const CommandContext& ctx, const TestRun& run, bool dry_run) {
  CommandSummary s;
  s.command = "test";
  s.dry_run = dry_run;
  s.scope = run.scope;
  s.state = describe_store(ctx.state_url);
  s.built = dry_run ? run.checks.count(planner::CheckAction::run) : 0;
  s.reused = run.checks.count(planner::CheckAction::skip);
  for (const auto& name : check_selection(run.checks)) s.selection += (s.selection.empty() ? "" : " ") + name;
  return s;
}

bool deliver(const CommandContext& ctx, const TestRun& run, const CommandSummary& summary, const json& run_doc,
             const std::string& dbt_errors = "") {
  auto document = [&] {
    return document_of_members({{"checks", planner::to_json(run.checks, true)},
                                {"run", run_doc.dump(2)},
                                {"summary", to_json(summary).dump(2)}});
  };
  return deliver_report(ctx, document, [&] {
    MarkdownInput in = markdown_input(run.checks, summary);
    in.dbt_errors = dbt_errors;
    return in;
  });
}

bool print_summary(const CommandContext& ctx, const TestRun& run, const json& counts, const std::string& run_id,
                   const std::string& outcome, const std::string& dbt_errors, const std::string& recorded_from) {
  if (ctx.format == "text") {
    const json& c = counts.at("checks");
    char line[320];
    std::snprintf(line, sizeof line,
                  "ods: %s: %d nodes and sources passed their checks, %d failed, %d skipped as already tested "
                  "(dbt ran %d checks: %d passed, %d failed) in %.1f s\n",
                  outcome.c_str(), counts.value("passed", 0), counts.value("failed", 0), counts.value("skipped", 0),
                  c.value("total", 0), c.value("passed", 0), c.value("failed", 0), seconds_since(run.started));
    *ctx.out << line;
  }
  if (!report_wanted(ctx)) return true;
  CommandSummary summary = test_summary(ctx, run, false);
  summary.built = counts.value("passed", 0);
  summary.failed = counts.value("failed", 0);
  summary.skipped = std::max(0, run.checks.count(planner::CheckAction::run) - summary.built - summary.failed);
  summary.outcome = outcome;
  const json run_doc{{"run_id", run_id},
                     {"outcome", outcome},
                     {"counts", counts},
                     {"seconds", seconds_since(run.started)},
                     {"recorded_from", recorded_from}};
  return deliver(ctx, run, summary, run_doc, dbt_errors);
}

}  // namespace

std::vector<std::string> check_selection(const planner::CheckPlan& checks) {
  std::vector<std::string> out;
  for (const auto& e : checks.entries)
    if (e.action == planner::CheckAction::run) out.push_back(e.resource_type == "source" ? "source:" + e.name : e.name);
  return out;
}

int finish_without_tests(const CommandContext& ctx, const TestRun& run, bool dry_run) {
  if (!report_wanted(ctx)) return kExitOk;
  CommandSummary summary = test_summary(ctx, run, dry_run);
  if (!dry_run) summary.outcome = "nothing_to_test";
  const json run_doc = dry_run ? json(nullptr) : json{{"outcome", "nothing_to_test"}};
  return deliver(ctx, run, summary, run_doc) ? kExitOk : kExitFailed;
}

int record_test_run(const CommandContext& ctx, TestRun& run, const LoadedProject& planned, bool one_parse,
                    const dbt::DbtCommandResult& dbt_test) {
  const char* failed_early = "dbt test failed before running any check";
  auto as_run = project_as_run(ctx, one_parse);
  if (!as_run) return report_nothing_recorded(ctx, dbt_test, failed_early, as_run.error());
  const LoadedProject* project = &as_run->of(planned);
  auto loaded = load_run(ctx, *project, RunKind::checks_only, as_run->written_by());
  if (!loaded) return report_nothing_recorded(ctx, dbt_test, failed_early, loaded.error());
  loaded->outcome.source_versions = run.source_versions;  // measured by the probe, before dbt test started
  auto committed = commit_outcome(run.store, run.scope, project->inputs, run.head, loaded->outcome, *ctx.err);
  if (!committed) {
    return report(ctx, not_recorded(committed.error(), "the checks",
                                    "the next `ods state test` decides against the newer state"));
  }
  const std::string outcome = dbt_test.exit_code == 0 ? "tested" : "tests_failed";
  json counts = result_counts(*loaded, run.checks);
  run::RunDetails details;
  details.recorded_by = "ods state test";
  details.summary = loaded->summary;
  details.counts = counts;
  details.seconds = seconds_since(run.started);
  // Carried unchanged (checks are not runs), so that the newest entry holds the scope's totals.
  if (auto kept = run::latest_metrics(run.store, run.scope); kept && !kept->runs.empty()) details.metrics = *kept;
  contracts::RunRecord ledger{loaded->outcome.run_id,
                              run.scope,
                              loaded->outcome.started_at,
                              loaded->finished_at,
                              outcome,
                              ods::sha256_hex(planner::to_json(project->dbt_project->inputs)),  // without evidence
                              planner::to_json(run.checks, false),
                              run::to_json(details),
                              committed->stored.id};
  append_ledger_entry(ctx, run.store, ledger);
  const bool delivered = print_summary(ctx, run, counts, loaded->outcome.run_id, outcome, dbt_test.error_text,
                                       as_run->reread() ? "manifest" : "plan");
  const int code = finish_after_dbt(ctx, dbt_test,
                                    "dbt test failed; the nodes and sources whose checks failed are untested and are "
                                    "tested again next time");
  return delivered ? code : kExitFailed;
}

}  // namespace ods::cli
