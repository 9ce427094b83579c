#pragma once
// Early cutoff on the controller (docs/early-cutoff.md, "In the operator"): a pod that asks
// for waves builds the plan's BUILD set one wave at a time; after each wave but the last it
// reports the wave (its dbt results and the content it measured), the controller records
// it as `ods state run` records a wave (a snapshot commit and a ledger entry of its own, run
// id `<run uid>.wave<N>`), re-plans the nodes held back against that snapshot and answers
// the next selection. The last wave's build goes to `results` as a one-wave run's does.
//
// The state between requests lives in the ledger entries' details (run::WaveDetails): the
// planned entry holds wave 1's, each wave entry the next wave's, so a restarted controller
// carries on.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ods/callback/callback_service.h"
#include "ods/callback/protocol.h"
#include "ods/contracts/state_store.h"
#include "ods/planner/plan.h"
#include "ods/run/run_details.h"
#include "refusal.h"

namespace ods::callback::detail {

// The wave state an entry's details keep; nullopt for a run not in waves.
std::optional<run::WaveDetails> wave_state_of(const contracts::RunRecord& entry);
WaveInfo wave_info_of(const run::WaveDetails& state);

// "<run uid>.wave<N>": the ledger entry and snapshot run id of wave `number` reported.
std::string wave_entry_id(const std::string& run_uid, int number);

// Wave 1 of `plan` for a pod that asked for cutoff `mode` ("auto" | "always"): which BUILD
// nodes it builds and which it holds back (run::next_wave with the scope's recorded build
// times; one more wave costs two dbt calls, each the pod's probe call time).
run::WaveDetails first_wave(contracts::StateStore& store, const std::string& scope,
                            const planner::ProjectInputs& inputs, const planner::ExecutionPlan& plan,
                            const std::string& mode, double call_seconds,
                            std::optional<std::map<std::string, bool>> relations_exist);

// The newest ledger entry of a run: `planned`, else the last wave entry recorded after it.
[[nodiscard]] Result<contracts::RunRecord> newest_entry_of(contracts::StateStore& store, const std::string& scope,
                                                           const std::string& run_uid, contracts::RunRecord planned);

// Records wave `report.wave` and answers the next. Refused (changing nothing): a run not
// planned or already recorded, a run not in waves or a wave number it does not expect (409),
// inputs other than planned (409), a failed wave (400: a failed wave goes to results).
// Reported again (a lost answer, a restarted controller): the first answer.
[[nodiscard]] Answer<WaveAnswer> record_wave(const RunCall& call, const WaveReport& report, CallbackDeps& deps);

}  // namespace ods::callback::detail
