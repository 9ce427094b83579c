#pragma once
// What a run's `dbt build` selects, decided once for `ods state run` and for the controller's
// plan of an `ods pod` run: the plan's BUILD nodes and the sources whose checks run with them.
#include <optional>
#include <string>
#include <vector>

#include "ods/planner/inputs.h"
#include "ods/planner/plan.h"
#include "ods/planner/snapshot.h"

namespace ods::run {

// `source:<name>` for each source whose checks the build runs too (ADR-0013 #232: dbt build
// runs sources' tests; ODS builds no source): those within the selection not yet passed on
// the data they have now. `checks_selected`: the node and source ids --select / --exclude
// leave (nullopt: all). `previous`: the state planned against (null: none).
std::vector<std::string> source_checks_to_run(const planner::ProjectInputs& inputs,
                                              const planner::StateSnapshot* previous,
                                              const std::optional<std::vector<std::string>>& checks_selected);

// The `dbt build --select` arguments: the names of `plan`'s BUILD nodes, then `source_checks`.
// Empty when nothing builds (dbt build is then not started, and no source check runs).
std::vector<std::string> build_selection(const planner::ExecutionPlan& plan,
                                         const std::vector<std::string>& source_checks);

}  // namespace ods::run
