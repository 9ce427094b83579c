// Recording a run from the results its pod sent (the controller's half of `ods state run`
// after the build): the snapshot through the planner's record rules and the commit retry,
// then the ledger entry. Exactly once, across controller restarts.
#include <sstream>

#include "ods/planner/json_io.h"
#include "ods/run/node_counts.h"
#include "ods/run/run_details.h"
#include "ods/run/wave_record.h"
#include "ods/state/state_commit.h"
#include "run_ledger.h"
#include "run_steps.h"
#include "run_waves.h"

namespace ods::callback::detail {

namespace {

// A run whose dbt build failed, even in part, ends Failed (its successes are recorded).
RunPhase final_phase(const std::string& outcome) {
  return outcome == "success" || outcome == "reused" ? RunPhase::succeeded : RunPhase::failed;
}

// Counts and outcome of the results into `s`.
void add_results_to(RunSummary& s, const ResultsRequest& request) {
  s.reused = s.planned_reuse;
  s.duration_seconds = request.total_seconds;
  if (!request.build && s.built > 0) {  // waves: every node held back behind the last one was reused
    s.outcome = "success";
    s.message = "built " + std::to_string(s.built) + " in waves, reused " + std::to_string(s.planned_reuse) +
                " (early cutoff spared the nodes held back)";
    return;
  }
  if (!request.build) {
    s.outcome = "reused";
    s.message = "all " + std::to_string(s.planned_reuse) + " nodes reused; dbt build not started";
    return;
  }
  const BuildReport& b = *request.build;
  if (!b.results) {
    s.outcome = "failed";
    s.message = "dbt build failed before running any node (exit code " + std::to_string(b.exit_code) + ")";
    return;
  }
  for (const auto& [id, seconds] : b.results->node_seconds) s.build_seconds += seconds;
  add_node_counts(s, b.results->node_status);
  s.outcome = run::build_outcome(b.exit_code, s.built);
  s.message = b.results->summary.empty() ? s.outcome : b.results->summary;
  if (b.exit_code != 0)
    s.message += "; the nodes that failed or were skipped keep their last state (dbt exit code " +
                 std::to_string(b.exit_code) + ")";
}

// Refuses results that don't fit the run's plan.
Answer<void> check_against_plan(const RunCall& call, const ResultsRequest& request, const contracts::RunRecord& planned,
                                const RunSummary& s) {
  if (planner::inputs_digest(request.inputs) != planned.inputs_digest)
    return refuse_with(409, "inputs_differ", "inputs",
                       "differ from the inputs run " + call.ns + "/" + call.name + " was planned with");
  if (!request.build && !s.selection.empty())
    return refuse_with(400, "missing_build", "build",
                       "is missing: the plan has " + std::to_string(s.planned_build) + " nodes to build");
  return {};
}

// The recorded ledger entry of the run; `snapshot` already committed (nullopt: none).
contracts::RunRecord recorded_entry(const RunCall& call, const ResultsRequest& request,
                                    const contracts::RunRecord& planned, const RunSummary& s,
                                    const std::optional<std::string>& snapshot, const std::string& now) {
  run::RunDetails details = run::details_from_json(planned.details);
  details.run_summary = summary_to_json(s);
  details.planned_entry = planned_entry_id(call.run.uid);
  if (request.build) {
    details.timings["build"] = request.build->seconds;
    if (request.build->results) {
      details.node_seconds = request.build->results->node_seconds;
      details.dbt_invocation_id = request.build->results->invocation_id;
    }
  }
  details.timings["total"] = request.total_seconds;
  std::string started = planned.started_at, finished = now;
  if (request.build && request.build->results) {
    started = request.build->results->started_at;
    if (!request.build->results->finished_at.empty()) finished = request.build->results->finished_at;
  }
  return contracts::RunRecord{call.run.uid, call.run.scope,        started, finished, s.outcome, planned.inputs_digest,
                              planned.plan, run::to_json(details), snapshot};
}

}  // namespace

void add_node_counts(RunSummary& s, const std::map<std::string, std::string>& node_status) {
  const run::NodeCounts counts = run::count_node_results(node_status);
  s.built += counts.built;
  s.skipped += counts.skipped;
  s.failed += counts.failed;
}

planner::RunOutcome outcome_of(const std::string& run_uid, const BuildResults& r) {
  planner::RunOutcome outcome;
  outcome.run_id = run_uid;
  outcome.started_at = r.started_at;
  outcome.node_status = r.node_status;
  outcome.node_tests_passed = r.node_tests_passed;
  outcome.source_tests_passed = r.source_tests_passed;
  return outcome;
}

Answer<RecordedAnswer> record_run(const RunCall& call, const ResultsRequest& request, CallbackDeps& deps) {
  const std::string& scope = call.run.scope;
  const std::string run = call.ns + "/" + call.name;
  auto recorded = find_entry(deps.store, scope, call.run.uid);
  if (!recorded) return store_refusal(recorded.error(), "reading the run ledger of " + scope);
  if (*recorded) {  // posted again (a retry, a restarted controller): the first answer stands
    RunSummary s = summary_of(**recorded);
    deps.listener.on_phase(final_phase(s.outcome), s);
    return answer_of(**recorded, true);
  }
  auto planned = find_entry(deps.store, scope, planned_entry_id(call.run.uid));
  if (!planned) return store_refusal(planned.error(), "reading the run ledger of " + scope);
  if (!*planned)
    return refuse_with(409, "not_planned", "",
                       "results before inputs: run " + run + " has no plan; post its inputs first");
  // A run in waves: the newest wave entry holds the whole plan and the last wave's selection.
  auto newest = newest_entry_of(deps.store, scope, call.run.uid, std::move(**planned));
  if (!newest) return store_refusal(newest.error(), "reading the run ledger of " + scope);
  RunSummary s = summary_of(*newest);
  if (auto ok = check_against_plan(call, request, *newest, s); !ok) return std::unexpected(ok.error());
  add_results_to(s, request);
  deps.listener.on_phase(RunPhase::recording, s);

  // A snapshot this run committed before a restart, whose ledger entry was never written.
  auto committed_before = find_snapshot(deps.store, scope, call.run.uid);
  if (!committed_before) return store_refusal(committed_before.error(), "reading the history of " + scope);
  std::optional<std::string> snapshot;
  if (*committed_before) {
    snapshot = (*committed_before)->id;
  } else if (request.build && request.build->results) {
    auto head = state::read_head(deps.store, scope);
    if (!head) return store_refusal(head.error(), "reading the head of " + scope);
    std::ostringstream retries;
    planner::RunOutcome outcome = outcome_of(call.run.uid, *request.build->results);
    auto plan = planner::plan_from_json(newest->plan);
    if (!plan) return refuse_with(500, "corrupt", "", "the plan kept for run " + run + ": " + plan.error().message);
    // The whole run's plan: of its nodes built for code, record() reads those this build built.
    auto committed = run::commit_wave(deps.store, scope, request.inputs, request.inputs, std::move(*head), *plan,
                                      outcome, {request.node_contents, {}}, retries);
    if (!committed && committed.error().code == "stale_run")
      return refuse_with(409, "stale_run", "build.results.started_at", committed.error().message);
    if (!committed) return store_refusal(committed.error(), "recording run " + run);
    snapshot = committed->stored.id;
  }
  if (snapshot) s.snapshot_id = *snapshot;
  auto entry = recorded_entry(call, request, *newest, s, snapshot, deps.now());
  if (auto appended = deps.store.append_run(entry); !appended)
    return store_refusal(appended.error(), "writing the ledger entry of run " + run);
  deps.listener.on_phase(final_phase(s.outcome), s);
  return answer_of(entry, false);
}

}  // namespace ods::callback::detail
