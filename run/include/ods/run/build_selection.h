#pragma once
// What a run's `dbt build` selects, decided once for `ods state run` and for the controller's
// plan of an `ods pod` run: the plan's BUILD nodes and the sources whose checks run with them.
#include <optional>
#include <string>
#include <vector>

#include "ods/planner/checks.h"
#include "ods/planner/inputs.h"
#include "ods/planner/plan.h"
#include "ods/planner/snapshot.h"

namespace ods::run {

// The dbt selector of one node: its name, or `<name>.v<N>` for a version of a versioned model
// (unique id `model.<package>.<name>.v<N>`): the bare name selects every version of the model.
std::string node_selector(const std::string& id, const std::string& name);

// The checks the build runs beside `plan`'s BUILD nodes (whose own checks dbt build runs with
// them), as dbt selectors: the RUN entries of planner::plan_run_checks — `source:<name>` for
// a source not yet passed on the data it has now (ADR-0013 #232: ODS builds no source), and
// `<name>,resource_type:test` (`<name>.v<N>,...` for a model version) for a REUSE node whose data tests have not passed
// on its current build (they run, not the node; dbt orders them before the node's readers and skips the readers when
// they fail). `checks`: that check plan. Sources first, then nodes, by id.
std::vector<std::string> check_selection(const planner::CheckPlan& checks);

// planner::plan_run_checks for `plan` against `previous` (null: none), with `checks_selected`:
// the node and source ids --select / --exclude leave (nullopt: all).
planner::CheckPlan run_checks(const planner::ProjectInputs& inputs, const planner::StateSnapshot* previous,
                              const planner::ExecutionPlan& plan,
                              const std::optional<std::vector<std::string>>& checks_selected);

// The `dbt build --select` arguments: `plan`'s BUILD nodes, then `checks` (check_selection). A resource
// type whose every node in `inputs` builds is named once (`resource_type:model`), the others
// node by node: dbt matches each name against every node, so naming 9,000 nodes of a 10k-node
// project costs dbt tens of minutes before the first node builds (docs/benchmarks.md), where
// the type selects the same nodes, and the same tests with them, in one pass. A version of a
// versioned model is named `<name>.v<N>` (the bare name builds every version). `checks` alone
// when nothing builds; empty when neither builds nor runs (dbt build is then not started).
std::vector<std::string> build_selection(const planner::ProjectInputs& inputs, const planner::ExecutionPlan& plan,
                                         const std::vector<std::string>& checks);

}  // namespace ods::run
