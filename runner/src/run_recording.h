#pragma once
// The end of `ods state run`: record what dbt built (only successful nodes advance), write
// the run ledger entry (plan, timings, per-source probe latency, outcome), print a summary.
#include <chrono>
#include <optional>
#include <string>

#include "context.h"
#include "evidence_gathering.h"
#include "ods/contracts/state_store.h"
#include "ods/dbt/dbt_command.h"
#include "ods/planner/plan.h"
#include "state_access.h"

namespace ods::cli {

// Seconds per phase of `ods state run`: dbt's (compile, the probe's dbt show call, build) and
// ODS's own (load: reading the manifest into planner inputs and the selection; probe_parse:
// reading the probe's answer and choosing versions; plan: reading the head and planning;
// record: reading run_results.json and committing the snapshot; ledger: time saved and the
// ledger entry). docs/cli.md, "timings".
struct RunTimings {
  double compile = 0, load = 0, probe = 0, plan = 0, build = 0, record = 0, ledger = 0;
};

struct RunContext {
  std::string scope;
  contracts::StateStore& store;
  std::optional<Head> head;  // the state the plan was made against
  planner::ExecutionPlan plan;
  GatheredEvidence evidence;
  RunTimings timings;
  std::chrono::steady_clock::time_point started;
  std::map<std::string, planner::DataVersion> source_versions;  // chosen before the build started
};

// `ods state run --dry-run`'s end: the JSON document ({"plan", "run": null, "summary"}) and
// the Markdown as the flags ask; `store` (null when there is none yet) gives the time saved.
// Reads only.
int finish_dry_run(const CommandContext& ctx, const planner::ExecutionPlan& plan, contracts::StateStore* store);

// Everything was reused: a ledger entry, no snapshot (nothing changed), a summary.
int finish_without_build(const CommandContext& ctx, RunContext& run);

// dbt build ran (it may have failed): record it from its own artifacts, then summarise.
// Returns kExitFailed when dbt failed or the state could not be committed.
int record_build(const CommandContext& ctx, RunContext& run, const dbt::DbtCommandResult& build);

}  // namespace ods::cli
