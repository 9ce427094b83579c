#pragma once
// A pull request's environment (`ods state pr`, docs/cli.md "PR environments"): which nodes a PR
// builds into its own schema and which it reads from production, decided from the plan of the
// PR's code against production's recorded state. Pure: no I/O, no warehouse names.
//
// Built: every node whose code differs from production's record by ODS's fingerprints (the
// planner's build-for-code reasons: never_built, incomplete_fingerprint, fingerprint_changed,
// upstream_code_changed, unknown_parent) or whose run-time reads are not fingerprinted
// (reads_run_context), then every node downstream of those. A node production built for data
// only (new source data, a lag policy) is not built: its code is production's, and the PR reads
// production's relation as it is. From production: the nodes outside the built set that a built
// node reads; one of them whose relation production no longer has (or whose existence could not
// be checked) is built instead, with relation_missing or relation_unverified, and its own
// parents are then read from production.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ods/planner/inputs.h"
#include "ods/planner/plan.h"

namespace ods::run {

// The reasons only a PR environment's plan carries (docs/reason-codes.md, "PR environments"):
// REUSE read from production by a node the PR builds, and REUSE left alone.
inline constexpr std::string_view kFromProduction = "from_production";
inline constexpr std::string_view kNotRead = "not_read";

struct PrSelection {
  // The plan of the PR environment: every node of `prod_plan`, BUILD for the built set (with the
  // reasons above), REUSE for the rest (reason `from_production` for those a built node reads,
  // `not_read` for the others); ordered as `prod_plan`; `select` is the built names.
  planner::ExecutionPlan plan;
  // The ids of the REUSE nodes a BUILD node reads (from production: deferred or cloned), in plan order.
  std::vector<std::string> from_production;
};

// `prod_plan`: planner::plan of the PR's code compiled with production's target, against
// production's recorded snapshot. `relations_exist`: the probe's answer for production's
// relations (nullopt: not asked, so every node read from production is unverified and built).
PrSelection pr_selection(const planner::ProjectInputs& inputs, const planner::ExecutionPlan& prod_plan,
                         const std::optional<std::map<std::string, bool>>& relations_exist);

// The relations a PR environment writes: its BUILD nodes', and with `cloned` the nodes it clones
// from production (`from_production`), as dbt names them in `pr_inputs` (the project parsed with
// the PR's target). The first of them, in plan order, that is also the relation of a node of
// `prod_inputs` (the project compiled with production's target), as "<node id> (<relation>)";
// nullopt when none is. Relations compare without case (a warehouse folds unquoted names): a PR
// that would write into production is refused, not allowed on a spelling.
std::optional<std::string> first_production_relation(const planner::ProjectInputs& prod_inputs,
                                                     const planner::ProjectInputs& pr_inputs,
                                                     const PrSelection& selection, bool cloned);

}  // namespace ods::run
