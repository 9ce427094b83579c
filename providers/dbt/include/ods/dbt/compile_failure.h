#pragma once
// A `dbt compile` that failed on a node whose Jinja queries the warehouse (issue 27 item 0):
// dbt_utils.get_column_values-style introspection, `run_query` over a `ref` of a model the
// run has not built yet. `dbt build` builds upstream first and compiles each node in its turn,
// so such a node is not an error of the project, only of compiling everything up front. These
// read dbt's error text and tell that case from every other compile error, which still fails
// the run with dbt's message.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ods/planner/inputs.h"

namespace ods::dbt {

// One node a failed compile names, from a line "<Kind> Error in <type> <name> (<path>)" of
// dbt's error text (dbt 1.8-1.12: "Runtime Error in model pivot (models/pivot.sql)",
// "Compilation Error in model ...", "Database Error in model ...").
struct CompileFailure {
  std::string resource_type;  // "model", "snapshot", "seed", ...
  std::string name;           // the node's name (not its unique id: dbt does not print it)
  std::string path;           // its file, relative to its package, as dbt prints it
  std::string message;        // that line and the indented lines under it
};

// The nodes `error_text` (DbtCommandResult::error_text of a failed dbt compile) names, in
// order, each once. Empty when it names none (a parse error, a bad profile, an unreadable
// text): such a failure is never anything but a failure. Pure.
std::vector<CompileFailure> compile_failures(std::string_view error_text);

// Whether `message` (a CompileFailure's) says that node `node_id` of `inputs` read an upstream
// relation that doesn't exist yet: the name of the first of its ancestors (planned nodes,
// through parents, nearest first) whose relation the probe found missing
// (relations_exist[id] == false) and whose relation, or its last part unquoted (the
// identifier), the message names as a whole word; nullopt when none does (unknown existence
// never counts). Sources are never such an ancestor: dbt build doesn't build them. Pure.
std::optional<std::string> missing_upstream_named(const planner::ProjectInputs& inputs, const std::string& node_id,
                                                  std::string_view message,
                                                  const std::map<std::string, bool>& relations_exist);

}  // namespace ods::dbt
