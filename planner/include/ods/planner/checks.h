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

// The `ods state test --format json` "checks" document.
std::string to_json(const CheckPlan& plan, bool pretty);

}  // namespace ods::planner
