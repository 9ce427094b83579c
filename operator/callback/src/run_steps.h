#pragma once
// The two steps of a run on the controller: planning the pod's inputs and recording its
// results. Each validates everything before it writes, so a refused request changes nothing.
#include "ods/callback/callback_service.h"
#include "ods/callback/protocol.h"
#include "refusal.h"

namespace ods::callback::detail {

// Plans `request` against the scope's head, persists the plan as the run's planned ledger
// entry and answers it. The same inputs posted again get the same answer (nothing written);
// other inputs for a planned run, or inputs for a recorded run, are refused (409).
[[nodiscard]] Answer<PlanAnswer> plan_run(const RunCall& call, const InputsRequest& request, CallbackDeps& deps);

// The head of the run's scope (nothing when it has recorded nothing) and the scope, for a pod
// about to compile: any time in the run, nothing written. Refused only when the store fails.
[[nodiscard]] Answer<HeadAnswer> answer_head(const RunCall& call, const HeadRequest& request, CallbackDeps& deps);

// Records `request` (the run's snapshot, then its ledger entry) and answers the outcome.
// Results for a run already recorded get the first recorded answer (already_recorded).
// Refused: results before the inputs, or results of other inputs than planned (409).
[[nodiscard]] Answer<RecordedAnswer> record_run(const RunCall& call, const ResultsRequest& request, CallbackDeps& deps);

// The plan's counts into `s`: nodes to build and to reuse, by first reason code (replacing
// what `s` held of a plan before).
void count_plan(RunSummary& s, const planner::ExecutionPlan& plan);

// The build's nodes (node id -> dbt status) counted into `s` (run::count_node_results), added
// to what `s` holds: a run in waves counts the nodes of every wave.
void add_node_counts(RunSummary& s, const std::map<std::string, std::string>& node_status);

// dbt's side of a build reported as run `run_id`, for run::commit_wave (which adds the
// sources' versions the probe measured, the contents measured after the build and the nodes
// built for code).
planner::RunOutcome outcome_of(const std::string& run_id, const BuildResults& results);

}  // namespace ods::callback::detail
