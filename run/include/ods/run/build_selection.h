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

// The `dbt build --select` arguments: `plan`'s BUILD nodes, then `source_checks`. A resource
// type whose every node in `inputs` builds is named once (`resource_type:model`), the others
// node by node: dbt matches each name against every node, so naming 9,000 nodes of a 10k-node
// project costs dbt tens of minutes before the first node builds (docs/benchmarks.md), where
// the type selects the same nodes, and the same tests with them, in one pass. Empty when
// nothing builds (dbt build is then not started, and no source check runs).
std::vector<std::string> build_selection(const planner::ProjectInputs& inputs, const planner::ExecutionPlan& plan,
                                         const std::vector<std::string>& source_checks);

}  // namespace ods::run
