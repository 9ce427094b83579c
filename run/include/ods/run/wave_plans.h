#pragma once
// Early cutoff's plans across waves (docs/early-cutoff.md), shared by `ods state run`
// (cli/src/commands/cutoff_run.cc) and the operator (the pod measures, the controller re-plans):
// a wave's own plan, the whole run's plan after a re-plan, and which built nodes are worth
// measuring. Pure.
#include <string>
#include <vector>

#include "ods/planner/inputs.h"
#include "ods/planner/plan.h"

namespace ods::run {

// `plan` with only the entries of `ids` among its BUILD entries (its reuses kept); its
// selection (`select`) recomputed from what is left.
planner::ExecutionPlan only_building(const planner::ExecutionPlan& plan, const std::vector<std::string>& ids);

// `whole` with the entries `replan` has for the same ids; its selection recomputed and the
// re-plan's new warnings added.
void merge_replan(planner::ExecutionPlan& whole, const planner::ExecutionPlan& replan);

// Of `built`, the nodes some node of the project reads: the ones whose content a reader
// could cut off on (in `built`'s order).
std::vector<std::string> nodes_with_readers(const planner::ProjectInputs& inputs,
                                            const std::vector<std::string>& built);

// The ids of `plan`'s BUILD entries, in plan order (what the waves of `plan` build).
std::vector<std::string> building_ids(const planner::ExecutionPlan& plan);

// The ids of `plan`'s BUILD entries built for code (planner::built_for_code), in plan order.
std::vector<std::string> built_for_code_ids(const planner::ExecutionPlan& plan);

}  // namespace ods::run
