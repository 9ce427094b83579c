#pragma once
// Which checks a test-only run (`ods state test`) runs, and why (ADR-0013 "Tested builds"
// #220 and "Tested sources" #232). Pure and synchronous like plan(): no I/O, no vendor
// logic, thread-safe. Recording the run is record() with RunOutcome::checks_only.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ods/planner/evidence.h"
#include "ods/planner/inputs.h"
#include "ods/planner/plan.h"
#include "ods/planner/snapshot.h"

namespace ods::planner {

enum class CheckAction { run, skip };
std::string_view to_string(CheckAction a);

// The decision for one node's or one source's checks: all of them run, or none.
struct CheckEntry {
  std::string id;
  std::string name;
  std::string resource_type;  // "model" | "seed" | "snapshot" | "source"
  CheckAction action = CheckAction::run;
  std::vector<Reason> reasons;  // the first decided (first match wins)
  std::vector<Evidence> evidence;
};

struct CheckPlan {
  std::string scope;                // "<project>/<environment>"
  std::vector<CheckEntry> entries;  // selected nodes and sources that have checks: sources, then nodes, by id
  int without_checks = 0;           // selected nodes without checks: never tested, nothing to run
  std::vector<std::string> warnings;
  int count(CheckAction a) const;
};

struct CheckOptions {
  // Node and source ids selected; nullopt: everything. The caller resolves selectors (for
  // sources, as dbt does: those the selection names or reaches as ancestors).
  std::optional<std::vector<std::string>> selected;
};

// Decides, first match wins:
//   node (with checks):   no recorded build -> skip never_built (nothing to vouch for);
//                         no pass recorded on its current build -> run not_tested;
//                         passed against other checks (or a record without a digest) -> run checks_changed;
//                         otherwise -> skip unchanged (already tested).
//   source (with checks): no pass recorded -> run not_tested; other checks -> run checks_changed;
//                         its version now below semantic, measured no later than the last pass,
//                         or none recorded with the pass -> run missing_data_evidence;
//                         the version moved -> run new_upstream_data; otherwise -> skip unchanged.
// `previous` may be nullptr (nothing recorded); a snapshot of another target identity counts
// as nothing recorded, with a warning (ADR-0017).
[[nodiscard]] CheckPlan plan_checks(const ProjectInputs& inputs, const StateSnapshot* previous,
                                    const CheckOptions& options);

// True when `node`'s checks, as they are now (its checks digest), passed on the build `state`
// records: a pass is recorded only on the build it ran against, and a failure clears it.
bool checks_passed_on_build(const NodeInput& node, const NodeState& state);

// The checks `ods state run` runs beside `plan` (issue 27: failing checks keep gating, as dbt
// build gates). Entries, sources then nodes, by id:
//   each source with checks in options.selected (all: nullopt), decided as plan_checks does;
//   each REUSE node of `plan` with checks, decided as plan_checks does: run when no pass is
//   recorded on its current build (never ran on it, or failed: not_tested) or the checks
//   changed since (checks_changed), so they run before its readers and gate them as dbt
//   build does; otherwise skip (unchanged: "passed on this build in run R").
// A BUILD node's checks run with its build and get no entry (a node whose checks run only
// with its build is BUILT by plan() while they have not passed: checks_not_passed).
// without_checks counts the plan's nodes without checks. `previous` as in plan_checks.
[[nodiscard]] CheckPlan plan_run_checks(const ProjectInputs& inputs, const StateSnapshot* previous,
                                        const ExecutionPlan& plan, const CheckOptions& options);

// The `ods state test --format json` "checks" document.
std::string to_json(const CheckPlan& plan, bool pretty);

}  // namespace ods::planner
