#include "ods/run/wave_record.h"

#include "ods/run/failure_reach.h"
#include "ods/run/node_counts.h"
#include "ods/run/wave_plans.h"

namespace ods::run {

void complete_wave_outcome(planner::RunOutcome& outcome, const planner::ProjectInputs& planned,
                           const planner::ExecutionPlan& plan, WaveMeasured measured) {
  outcome.source_versions.clear();  // the probe's, measured before the build started
  for (const auto& source : planned.sources)
    if (source.version) outcome.source_versions[source.id] = *source.version;
  outcome.node_contents = std::move(measured.node_contents);
  outcome.node_identities = std::move(measured.node_identities);
  outcome.built_for_code = built_for_code_ids(plan);
}

Result<state::Committed> commit_wave(contracts::StateStore& store, const std::string& scope,
                                     const planner::ProjectInputs& recorded, const planner::ProjectInputs& planned,
                                     std::optional<state::Head> head, const planner::ExecutionPlan& plan,
                                     planner::RunOutcome& outcome, WaveMeasured measured, std::ostream& retries) {
  complete_wave_outcome(outcome, planned, plan, std::move(measured));
  // The head moves in and the committed state comes back: a copy of either is a whole snapshot
  // (tens of MB at 10k nodes).
  return state::commit_outcome(store, scope, recorded, std::move(head), outcome, retries);
}

HeldBack split_held_back(const planner::ProjectInputs& inputs,
                         const std::map<std::string, std::vector<std::string>>& checks_of,
                         const std::map<std::string, std::string>& node_status,
                         const std::vector<std::string>& failed_checks, bool build_failed,
                         const std::vector<std::string>& held_back) {
  HeldBack out;
  if (!build_failed) {
    out.to_build_later = held_back;
    return out;
  }
  std::vector<std::string> not_built;
  for (const auto& [id, status] : node_status)
    if (node_result(status) != NodeResult::built) not_built.push_back(id);
  FailureReach reach;
  if (not_built.empty() && failed_checks.empty()) {
    reach.unknown = true;
  } else {
    reach = reach_of_failures(inputs, checks_of, not_built, failed_checks);
  }
  for (const auto& id : held_back) (reach.contains(id) ? out.skipped_below_failure : out.to_build_later).push_back(id);
  return out;
}

Result<planner::ExecutionPlan> replan_held_back(const planner::ProjectInputs& inputs,
                                                const planner::StateSnapshot* recorded,
                                                const planner::ExecutionPlan& wave_plan,
                                                const std::vector<std::string>& to_build, planner::PlanOptions& options,
                                                planner::ExecutionPlan& whole) {
  for (const auto& e : wave_plan.entries)
    if (e.action == planner::Action::build) options.built_earlier[e.id] = planner::built_for_code(e);
  options.selected = to_build;
  auto replan = planner::plan(inputs, recorded, options);
  if (!replan) return std::unexpected(replan.error());
  merge_replan(whole, *replan);
  return replan;
}

}  // namespace ods::run
