#pragma once
// An incremental model's compiled code depends on whether its relation exists when dbt compiles
// it (`is_incremental()`). A run that compiled before building an incremental model whose
// relation did not exist planned with the first-build form of its code; once built, every later
// compile renders the incremental form. Recording the first form would make the next run see
// "sql changed" and build it again for nothing. So after the build those models are compiled
// again, and the record takes the code components of that compile: what the next run's compile
// renders, as a later build of an existing incremental model records (docs/cli.md, `ods state run`
// step 6). The command runs dbt; these functions only choose and compare.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ods/dbt/artifacts.h"
#include "ods/planner/inputs.h"

namespace ods::dbt {

// A node id -> the fingerprint components derived from its compiled code ("sql" for SQL,
// "compiled_code" for Python), as a compile after its build gave them.
using RecompiledCode = std::map<std::string, std::map<std::string, std::string>>;

// The incremental models of `project` (DbtProject::incremental_models) that `node_status`
// (run_results' node id -> status) says were built successfully and whose relation
// `relations_exist` (the probe's answer before the build) did not show as existing: missing,
// not checked, or no answer at all; or that existed as another kind than a table by
// `relation_kinds` (the probe's listing, where it names one: a view in its place, so
// is_incremental() was false too). Sorted ids.
std::vector<std::string> incremental_first_builds(const DbtProject& project,
                                                  const std::map<std::string, std::string>& node_status,
                                                  const std::optional<std::map<std::string, bool>>& relations_exist,
                                                  const std::map<std::string, std::string>& relation_kinds = {});

// The code components of each of `ids` in `recompiled` (the project of a dbt compile run after
// their build) whose parse evidence equals its entry in `recorded` (the project being recorded):
// the same raw code digest, and every component of `recompiled`'s entry except the code
// components equal to `recorded`'s. A node that differs (a file edited since the build and
// parsed again), that is missing, or whose compiled code is missing or incomplete is left out:
// it is recorded as built, and builds once more next time (the safe side).
RecompiledCode recompiled_code(const planner::ProjectInputs& recorded, const planner::ProjectInputs& recompiled,
                               const std::vector<std::string>& ids);

// Replaces the code components of `inputs`' nodes named in `code` with its values.
void take_recompiled_code(planner::ProjectInputs& inputs, const RecompiledCode& code);

}  // namespace ods::dbt
