#pragma once
// The plan the next `ods state run` makes, made once, the way it makes it (issue 39 item 3):
// the state store opened first (the compile reads the recorded compile keys), `dbt parse` (its
// manifest kept: parse_reuse.h), `dbt compile` of only the nodes whose compile key changed
// (keyed_compile.h: the others take their recorded `sql`), the probe of the warehouse, the
// recorded head and planner::plan. `ods state run` (also --dry-run), `ods state explain` and
// `ods state diff` all plan through it, so they agree: explain and diff used to read target/
// alone, which the compile key leaves without compiled code for every node it spared, and said
// `incomplete_fingerprint` and `sql removed` where the run reused.
#include <expected>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli_args.h"
#include "context.h"
#include "evidence_gathering.h"
#include "ods/contracts/state_store.h"
#include "ods/planner/planner.h"
#include "run_preparation.h"
#include "run_recording.h"
#include "state_access.h"

namespace ods::cli {

enum class NextRunUse {
  run,      // records: the store opened writable (created when missing), check_can_record first
  dry_run,  // reads: opened read-only; no store is no recorded state (every node never_built)
  inspect,  // explain, diff: opened read-only; no store is an error naming where (without_state)
};

struct NextRunPlan {
  std::unique_ptr<contracts::StateStore> store;             // null only for a dry run without a store
  PreparedRun prepared;                                     // its project is the evidenced project planned
  std::string scope;                                        // <project>/<target> of the planned project
  std::optional<Head> head;                                 // the recorded state planned against
  GatheredEvidence evidence;                                // the probe's
  planner::PlanOptions options;                             // as planned (now, selection, relations_exist)
  std::optional<std::vector<std::string>> checks_selected;  // the checks --select names
  planner::ExecutionPlan plan;
  RunTimings timings;  // compile, load, probe and plan set
};

// Returns the plan, or the process exit code after the reason was printed on ctx.err:
// prepare_run's and settle_compiles' codes; kExitFailed for the store's errors (opening it,
// reading the head, check_can_record for NextRunUse::run) and the planner's. For
// NextRunUse::run with --pushgateway the scope is announced there (announce_scope) before the
// probe. Prints nothing on ctx.out. `ctx` must outlive the result.
[[nodiscard]] std::expected<NextRunPlan, int> plan_next_run(const ParsedArgs& args, CommandContext& ctx,
                                                            NextRunUse use);

}  // namespace ods::cli
