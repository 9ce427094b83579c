#pragma once
// `dbt compile` for the commands that build (issue 27 item 0, "run wherever dbt build runs"):
// a node whose Jinja queries a relation the run has not built yet (run_query over a ref,
// dbt_utils.get_column_values) stops dbt compile, while dbt build would build upstream first
// and compile it in its turn. Such a node is left out of the compile (dbt compile --exclude)
// and compiled again without it, and once the probe has said which relations exist, it is
// marked `compile_needs_upstream` (rule 3: built, its readers by rule 5) when dbt's error names
// an upstream relation that is missing. Any other compile error fails the command with dbt's
// message, as before; so does a deferred node whose error can't be classified so exactly.
#include <string>
#include <vector>

#include "context.h"
#include "dbt_session.h"
#include "evidence_gathering.h"
#include "ods/dbt/compile_failure.h"
#include "project_loader.h"

namespace ods::cli {

// A node dbt compile stopped on, left to dbt build.
struct DeferredCompile {
  dbt::CompileFailure failure;
  int exit_code = 0;       // that compile's
  std::string error_text;  // that compile's error text, as dbt gave it
};

enum class CompileDeferral {
  never,        // any compile error fails (`ods state test`: dbt test compiles nothing it builds)
  until_build,  // a node that stops the compile is compiled by dbt build in its turn
};

// At most this many nodes are left to dbt build; one more that stops the compile fails it.
inline constexpr std::size_t kMaxDeferredCompiles = 50;

// `dbt compile` with a step line; with until_build, again without each node a failed compile
// names (a model or snapshot: dbt::compile_failures) into `deferred`, until it succeeds or fails
// naming no new one, or kMaxDeferredCompiles were left out. Returns kExitOk, or the exit code
// after reporting why not (the last compile's failure as dbt gave it, interrupted, or dbt could
// not be started).
// `select` non-empty: `dbt compile --select <select...>` (the nodes whose compile key changed or
// that can't be keyed, keyed_compile.h), else the whole project. `extra` is appended to every
// compile's arguments (dbt::kDriverNoManifest).
int compile_project(const CommandContext& ctx, DbtSession& dbt, const std::vector<std::string>& target_path,
                    CompileDeferral deferral = CompileDeferral::never, std::vector<DeferredCompile>* deferred = nullptr,
                    const std::vector<std::string>& select = {}, const std::vector<std::string>& extra = {});

// After the probe: each node of `project.inputs` a deferred compile names (by resource type and
// name) gets compile_needs_upstream, saying which missing upstream relation dbt's error names
// (dbt::missing_upstream_named over `evidence.relations_exist`). When a deferred compile's
// nodes name none (the relation exists, its existence is unknown, or no upstream relation is
// named), that compile's failure is reported as dbt gave it and kExitFailed returned: nothing
// is built or recorded. kExitOk otherwise (also when `deferred` is empty).
int settle_deferred_compiles(const CommandContext& ctx, const std::vector<DeferredCompile>& deferred,
                             LoadedProject& project, const GatheredEvidence& evidence);

}  // namespace ods::cli
