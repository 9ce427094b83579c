#pragma once
// What follows one wave's `dbt build` (early cutoff, docs/early-cutoff.md), the one
// implementation `ods state run` (cli/src/commands/cutoff_run.cc, run_recording.cc: dbt in
// this process) and the controller (operator/callback/src/run_waves.cc, run_results.cc: dbt in
// the runner pod, reported over callback_protocol/) both run: record the wave (its outcome
// committed on the state it planned against), split the nodes held back behind it when it
// failed, re-plan those that still build against what it recorded. Each side keeps what is its
// own: where dbt's results come from, the ledger entry it writes (the CLI's per wave, the
// controller's carrying its state between requests), what it prints or answers, and the
// costs its next wave is chosen by (run::next_wave).
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "ods/base/result.h"
#include "ods/contracts/state_store.h"
#include "ods/planner/inputs.h"
#include "ods/planner/plan.h"
#include "ods/planner/planner.h"
#include "ods/state/state_commit.h"

namespace ods::run {

// What was measured right after a wave's build, for record() (planner::RunOutcome's fields of
// the same names): each empty where nothing was; a pod reports no identities.
struct WaveMeasured {
  std::map<std::string, planner::DataVersion> node_contents = {};
  std::map<std::string, std::string> node_identities = {};
};

// Completes `outcome` (dbt's side of a wave's build: run id, start, node statuses, checks
// passed) for record(): the sources' versions of `planned` (the probe's, measured before the
// build started; any `outcome` held are dropped), `measured`, and the ids of `plan`'s BUILD
// entries built for code. Pure.
void complete_wave_outcome(planner::RunOutcome& outcome, const planner::ProjectInputs& planned,
                           const planner::ExecutionPlan& plan, WaveMeasured measured);

// Records a wave's build: `outcome` completed (complete_wave_outcome, in place: the caller reads
// it after) and committed on `head` (the state the wave was planned against, moved in) with
// state::commit_outcome's retry (each retry told on `retries`). `recorded`: the project recorded
// (the planned one, or the project as the build parsed it); `planned`: the one the plan was
// made from. Returns the committed state, which the next wave plans on. Errors:
// commit_outcome's ("conflict", "stale_run", the store's, record()'s); the state is then as
// another writer or the wave before left it.
[[nodiscard]] Result<state::Committed> commit_wave(contracts::StateStore& store, const std::string& scope,
                                                   const planner::ProjectInputs& recorded,
                                                   const planner::ProjectInputs& planned,
                                                   std::optional<state::Head> head, const planner::ExecutionPlan& plan,
                                                   planner::RunOutcome& outcome, WaveMeasured measured,
                                                   std::ostream& retries);

// The nodes held back behind a wave, after its build: those that still build and those below a
// failure, skipped as `dbt build` skips them (run/failure_reach.h).
struct HeldBack {
  std::vector<std::string> to_build_later;
  std::vector<std::string> skipped_below_failure;
};

// Splits `held_back` (in its order). A build that did not fail (`build_failed` false) leaves
// every node to build. After a failed build, the nodes below a node whose status in
// `node_status` is not built, or below a check of `failed_checks`, are skipped; a build that
// failed with no node or check failing (dbt stopped before its nodes) leaves nothing known to
// build on: every node is skipped. `checks_of`: node or source id -> the tests that read it.
HeldBack split_held_back(const planner::ProjectInputs& inputs,
                         const std::map<std::string, std::vector<std::string>>& checks_of,
                         const std::map<std::string, std::string>& node_status,
                         const std::vector<std::string>& failed_checks, bool build_failed,
                         const std::vector<std::string>& held_back);

// Re-plans `to_build` (nodes held back behind the wave `wave_plan` built) against `recorded`
// (the snapshot that recorded that wave): `options` gets the wave's BUILD entries as built
// earlier in this run (kept, so a later wave's re-plan knows every wave before it) and
// `to_build` as its selection; the rest of `options` is the caller's (the CLI keeps its first
// plan's, the controller the ones its wave state keeps). The re-plan's entries are merged into
// `whole` (the run's plan). Returns the re-plan. Errors: planner::plan's ("cycle",
// "invalid_inputs"); `whole` is then unchanged.
[[nodiscard]] Result<planner::ExecutionPlan> replan_held_back(const planner::ProjectInputs& inputs,
                                                              const planner::StateSnapshot* recorded,
                                                              const planner::ExecutionPlan& wave_plan,
                                                              const std::vector<std::string>& to_build,
                                                              planner::PlanOptions& options,
                                                              planner::ExecutionPlan& whole);

}  // namespace ods::run
