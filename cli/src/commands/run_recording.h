#pragma once
// The end of `ods state run`: record what dbt built (only successful nodes advance), write
// the run ledger entry (plan, timings, per-source probe latency, outcome), print a summary.
#include <chrono>
#include <future>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "context.h"
#include "dbt_session.h"
#include "evidence_gathering.h"
#include "ods/contracts/state_store.h"
#include "ods/dbt/dbt_command.h"
#include "ods/planner/checks.h"
#include "ods/planner/plan.h"
#include "ods/run/run_metrics.h"
#include "project_loader.h"
#include "state_access.h"

namespace ods::cli {

// Seconds per phase of `ods state run`: dbt's (compile, the probe's dbt show call, build) and
// ODS's own (load: reading the manifest into planner inputs and the selection; probe_parse:
// reading the probe's answer and choosing versions; plan: reading the head and planning;
// record: reading run_results.json and committing the snapshot; ledger: time saved and the
// ledger entry); and content: measuring what a wave built, for early cutoff (a dbt show call,
// dbt's). docs/cli.md, "timings".
struct RunTimings {
  double compile = 0, load = 0, probe = 0, plan = 0, build = 0, content = 0, record = 0, ledger = 0;
};

struct RunContext {
  // The evidenced project the plan was made from (its sources carry the probe's versions):
  // what is recorded, so the manifest is not read a second time and a manifest changed on
  // disk after the plan does not change what is recorded. Outlives the run.
  const LoadedProject& project;
  std::string scope;
  contracts::StateStore& store;
  std::optional<Head> head;  // the state the plan was made against
  planner::ExecutionPlan plan;
  // The checks run beside the plan's builds, and those not re-run with why (run::run_checks):
  // the report's "checks" document.
  planner::CheckPlan checks;
  GatheredEvidence evidence;
  RunTimings timings;
  std::chrono::steady_clock::time_point started;
  // What record_wave recorded against: "plan" (the planned project: every dbt command ran on
  // one parse), or "manifest" once a wave's dbt build parsed the project itself and the
  // manifest it wrote was recorded (project_as_run.h). The run document's `recorded_from`.
  std::string recorded_from = "plan";
  // The parse's fast path (PreparedRun::parse_fast_path_outcome): "taken", else why not; "" when
  // not considered. The run document's `parse_fast_path`.
  std::string parse_fast_path = "";
  // Some nodes' code is known only from dbt build, which compiled them in their turn (their
  // compile read a relation not built before: compile_deferral.h): each wave then records the
  // manifest its dbt build wrote, as when dbt parsed the project itself (ADR-0032).
  bool compiled_by_build = false;
  // The ledger's digest of the planned project's inputs (planner::inputs_digest: the inputs as
  // JSON, several hundred milliseconds at 10k nodes), computed while dbt builds
  // (start_inputs_digest); not valid before.
  std::shared_future<std::string> planned_inputs_digest{};
  // The cost rule's record for the ledger (run/evidence_cost.h, RunDetails::exact_evidence_*):
  // the seconds each exact evidence read by this run took, and the ids whose exact evidence the
  // rule left unread.
  std::map<std::string, double> exact_evidence_seconds{};
  std::vector<std::string> exact_evidence_skipped{};
  // PreparedRun::incremental_keys_set_aside: record_wave gives each incremental model it recompiled
  // after its first build the key set aside for it (set_aside_keys_of_recompiled).
  std::map<std::string, std::string> incremental_keys_set_aside{};
  // The run's dbt session: record_wave compiles through it the incremental models a wave built
  // for the first time (incremental_recompile.h). Null: not done.
  DbtSession* dbt = nullptr;
  // This run's part of the scope's run metrics (run_metrics.h): the whole plan's, from
  // begin_metrics; the waves add their build seconds and time saved.
  run::RunContribution metrics_part{};
  // The scope's totals with this run counted, once the ledger entry that carries them is written.
  std::optional<run::RunMetrics> metrics{};
};

// Sets run.metrics_part from run.plan (the whole plan, before any wave) and run.project.
void begin_metrics(RunContext& run);

// Starts computing run.planned_inputs_digest on a thread of its own (it reads only
// run.project, which no one changes during the run).
void start_inputs_digest(RunContext& run);

// `ods state run --dry-run`'s end: the JSON document ({"checks", "plan", "run": null,
// "summary"}) and the Markdown as the flags ask; `store` (null when there is none yet) gives
// the time saved. Reads only.
int finish_dry_run(const CommandContext& ctx, const planner::ExecutionPlan& plan, const planner::CheckPlan& checks,
                   contracts::StateStore* store);

// Everything was reused: a ledger entry and a summary; a snapshot only when the run learned
// compile keys (planner::compile_keys_to_record: the recorded state with those keys, its commit
// failing only with a warning), else none (nothing changed).
int finish_without_build(const CommandContext& ctx, RunContext& run);

// Early cutoff's evidence for record(): the content measured after a wave's build
// (planner::RunOutcome's fields of the same names; the nodes built for code come from the
// wave's plan, run::commit_wave).
struct WaveEvidence {
  std::map<std::string, planner::DataVersion> node_contents;
  // node id -> its relation's identity read right after the build (planner::RunOutcome's)
  std::map<std::string, std::string> node_identities;
  bool one_parse = false;  // the build ran on the plan's parse (DbtSession::one_parse)
  // The build wrote target/manifest.json; false: it ran with dbt::kDriverNoManifest (only with
  // one_parse), and the invocation its run_results.json must come from is the build's own
  // (DbtCommandResult::invocation_id).
  bool manifest_written = true;
  // The BUILD nodes held back behind this wave (run::Wave::later). The run ends with this wave
  // when none is left to build after it (none held back, or every one below a failure of this
  // wave): its ledger entry then counts the run in the scope's metrics.
  std::vector<std::string> held_back;
  bool earlier_wave_failed = false;  // the run failed already: it counts as failed whatever this wave does
};

// One wave's dbt build as recorded: its counts and dbt's summary, the plan's nodes it failed.
struct WaveRecord {
  std::string run_id;
  int built = 0, failed = 0, skipped = 0;
  std::string summary;
  std::vector<std::string> failed_nodes;
  std::vector<std::string> failed_checks;  // ids of the tests dbt reported failed or errored
  double saved = 0;                        // the last build times of the wave plan's reused nodes
  bool failed_build = false;               // dbt build exited non-zero
  // Of the nodes held back (WaveEvidence::held_back): those still to build after this wave, and
  // those below a failure of this wave, skipped as dbt build skips them (run/failure_reach.h;
  // counted in `skipped`).
  std::vector<std::string> to_build_later;
  std::vector<std::string> skipped_below_failure;
};

// Records one wave's dbt build from its run_results.json and `run.project` (of the manifest on
// disk only its metadata is read: the invocation that wrote it must be the one that wrote
// run_results.json; none when the build wrote no manifest: then it is the build's invocation id
// from its events), or, when the build parsed the project itself (!evidence.one_parse), the
// manifest it wrote (project_as_run.h, rule 2): a snapshot committed on `run.head`
// (which then becomes the committed state, for the next wave) and a ledger entry holding
// `run.plan`, the wave's plan. Fills `out`; returns kExitOk, or an exit code after reporting
// why nothing was recorded (each wave before stays recorded: rule 4).
int record_wave(const CommandContext& ctx, RunContext& run, const dbt::DbtCommandResult& build,
                const WaveEvidence& evidence, WaveRecord& out);

// Early cutoff spared every node held back after the last wave that built: that wave's ledger
// entry was written before this was known, without the run's metrics (WaveEvidence::held_back), so
// the run ends with an entry of its own — outcome "reused", `cut` (the re-plan, all REUSE) as its
// plan, nothing built, no snapshot — carrying the scope's totals with this run counted (its
// outcome failed when `run_failed`, an earlier wave's build failed, else succeeded; `saved` the
// held-back nodes' last build times added to the time saved).
void record_cut_off_end(const CommandContext& ctx, RunContext& run, const planner::ExecutionPlan& cut, double saved,
                        bool run_failed);

// The end of a run that built: the summary over `waves` (run.plan: the whole run's plan) and
// dbt's failure of the last build, if any. Returns kExitFailed when dbt failed or a report
// could not be written.
int finish_run(const CommandContext& ctx, const RunContext& run, const std::vector<WaveRecord>& waves,
               const dbt::DbtCommandResult& last_build);

}  // namespace ods::cli
