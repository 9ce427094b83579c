#pragma once
// A dbt selection (--select, --exclude, --selector) resolved by dbt itself: one `dbt ls` on the
// parse the command already holds (through the ods dbt driver, the manifest it kept), so every
// selector a dbt user types means in ODS what it means to dbt — graph operators, `a,b`
// intersections, `@`, every method, YAML selectors from selectors.yml. ODS keeps no grammar of
// its own; it only refuses, before any dbt call, the methods that make no sense for ODS
// (refuse_foreign_methods).
#include <filesystem>
#include <string>
#include <vector>

#include "ods/base/result.h"
#include "ods/dbt/dbt_command.h"
#include "ods/planner/inputs.h"

namespace ods::dbt {

// The selection flags as the user gave them; "" = not given. `select` and `exclude` are dbt's
// space-separated unions (a repeated flag joined with spaces), `selector` a name in selectors.yml.
struct SelectionFlags {
  std::string select;
  std::string exclude;
  std::string selector;
  bool any() const { return !select.empty() || !exclude.empty() || !selector.empty(); }
};

struct ResolvedSelection {
  std::vector<std::string> nodes;   // the planner's nodes dbt selected, sorted
  std::vector<std::string> checks;  // the node and source ids dbt selected (whose checks count), sorted
};

// Refuses the selector methods whose answer ODS gives from its own state, each with the reason:
// `state:` (ODS decides what changed from its recorded state), `result:` (a previous dbt run's
// results; ODS rebuilds what failed from its recorded runs), `source_status:` (two freshness runs
// compared; ODS reads each source's data version itself). Looks at every selector of `select`
// and `exclude` (through graph operators and `a,b` intersections) and, when `flags.selector` is
// given, at that selector's definition in `selectors_yml` and the selectors it names (a missing
// or unreadable file, or an unknown name, is left to dbt, which says so). Reads no other file,
// runs nothing. Error: "usage" naming the flag, the selector and why. Thread-safe.
[[nodiscard]] Result<void> refuse_foreign_methods(const SelectionFlags& flags,
                                                  const std::filesystem::path& selectors_yml);

// The arguments of the one dbt call: `ls --no-write-json --output json --output-keys unique_id`
// with the flags given, then `extra` (e.g. --target-path). `--no-write-json`: the listing leaves
// target/manifest.json as the command's own parse wrote it.
std::vector<std::string> list_arguments(const SelectionFlags& flags, const std::vector<std::string>& extra = {});

// Runs list_arguments through `dbt` and returns the unique ids dbt printed (every resource type:
// nodes, sources, tests, …), in dbt's order. Errors: `dbt.run`'s ("dbt_not_found",
// "spawn_failed"); "interrupted"; "usage" when dbt refused the selection (a selector it cannot
// read, an unknown --selector name), with dbt's own words; "usage" when it selected nothing.
[[nodiscard]] Result<std::vector<std::string>> list_selected(DbtCommand& dbt, const SelectionFlags& flags,
                                                             const std::vector<std::string>& extra = {});

// The unique ids dbt printed in a `dbt ls --output json` call's JSON log lines (each a PrintEvent
// whose message is `{"unique_id": ...}`); other lines are skipped.
std::vector<std::string> listed_ids(const std::vector<std::string>& events);

// `ids` (list_selected's) among `inputs`: the planner's nodes, and the nodes and sources whose
// checks count.
ResolvedSelection selection_among(const planner::ProjectInputs& inputs, const std::vector<std::string>& ids);

}  // namespace ods::dbt
