#pragma once
// Compiling only what could have changed (issue 28, docs/compile-key.md): after `dbt parse`,
// each model or snapshot whose compile key equals the key recorded with its last build keeps
// that build's `sql` component; dbt compiles the others (`--select`), on the same parse when the
// ods dbt driver keeps it. `--compile all` (or ODS_COMPILE=all) compiles everything, as before.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cli_args.h"
#include "context.h"
#include "ods/base/result.h"
#include "ods/planner/inputs.h"
#include "ods/planner/snapshot.h"

namespace ods::cli {

enum class CompileScope {
  all,      // dbt compile of the whole project (today's behaviour before issue 28)
  changed,  // only the nodes whose compile key changed or that can't be keyed (the default)
};

// --compile (else $ODS_COMPILE): "all" or "changed"; unset: changed. Errors: "usage" naming the
// flag or variable and the value.
[[nodiscard]] Result<CompileScope> compile_scope_setting(const ParsedArgs& args, const CommandContext& ctx);

// The recorded state a run continues, for the project the parse read: nullptr when there is
// none. Errors: the store's.
using RecordedSnapshot = std::function<Result<const planner::StateSnapshot*>(const planner::ProjectInputs&)>;

// Which nodes of `parsed` (a project read after dbt parse, no compiled SQL) keep their recorded
// `sql` component: those with a compile key equal to the one `recorded` holds for them, whose
// recorded fingerprint has an `sql` component. Seeds are never compiled and in neither list.
struct CompilePlan {
  std::map<std::string, const planner::NodeState*> stands;  // node id -> its recorded state
  std::vector<std::string> compile;                         // dbt selectors (node names) to compile
};
CompilePlan plan_compile(const planner::ProjectInputs& parsed, const planner::StateSnapshot* recorded);

// After the compile of plan.compile: each node of `inputs` in plan.stands that the compile did
// not give SQL takes its recorded `sql` component (dbt::take_recorded_sql). Returns how many did.
std::size_t apply_recorded_sql(planner::ProjectInputs& inputs, const CompilePlan& plan);

// After the probe: each node whose compile key holds is_incremental() as true
// (NodeInput::compile_key_assumes_incremental) keeps its key only when the probe showed its
// relation existing with the kind "table" and `full_refresh_env` ($DBT_FULL_REFRESH) is empty:
// what dbt's is_incremental() asks. Otherwise its key is cleared (the SQL this run has for it is
// not the key's, so it is recorded without one), and when its `sql` came from the record
// (sql_from_run) that component is taken back: its code is incomplete and it builds (rule 2),
// saying why. Returns the ids whose recorded SQL was taken back. When `set_aside` is given, each
// key cleared only because the relation did not exist or was listed as another kind than a table
// (a view...) goes there (node id ->
// key): after the node's build made it a table, the recompile of its incremental form is that
// key's SQL (set_aside_keys_of_recompiled).
std::vector<std::string> confirm_incremental_keys(planner::ProjectInputs& inputs,
                                                  const std::optional<std::map<std::string, bool>>& relations_exist,
                                                  const std::map<std::string, std::string>& relation_kinds,
                                                  const std::string& full_refresh_env,
                                                  std::map<std::string, std::string>* set_aside = nullptr);

// After record_wave's recompile of the incremental models built for the first time (`recompiled`:
// node id -> their code; the build made each relation a table, so dbt's is_incremental() was true
// in it): each such node of `inputs` (the planned project, the parse the keys were computed on)
// without a key takes the one confirm_incremental_keys set aside for it. Returns how many did.
std::size_t set_aside_keys_of_recompiled(planner::ProjectInputs& inputs,
                                         const std::map<std::string, std::map<std::string, std::string>>& recompiled,
                                         const std::map<std::string, std::string>& set_aside);

}  // namespace ods::cli
