#pragma once
// What the callback service keeps in the state store's run ledger for a run, so a restarted
// controller carries on: the planned entry (outcome "planned": the plan, the selection and
// the run summary so far) and the recorded entry (the outcome), and finding them again.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "ods/base/result.h"
#include "ods/callback/protocol.h"
#include "ods/callback/run_listener.h"
#include "ods/contracts/state_store.h"

namespace ods::callback::detail {

// The ledger entry `run_id` of `scope` (newest entries searched first); nullopt when absent.
[[nodiscard]] Result<std::optional<contracts::RunRecord>> find_entry(contracts::StateStore& store,
                                                                     const std::string& scope,
                                                                     const std::string& run_id);
// The snapshot committed by `run_id` in `scope`; nullopt when none.
[[nodiscard]] Result<std::optional<contracts::StoredSnapshot>> find_snapshot(contracts::StateStore& store,
                                                                             const std::string& scope,
                                                                             const std::string& run_id);

nlohmann::json summary_to_json(const RunSummary& summary);
// Reads what summary_to_json wrote (missing members keep their defaults).
RunSummary summary_from_json(const nlohmann::json& doc);

// The run summary an entry's details keep (ods::run::RunDetails::run_summary; defaults when
// absent or unreadable).
RunSummary summary_of(const contracts::RunRecord& entry);

// The answer the recorded entry stands for.
RecordedAnswer answer_of(const contracts::RunRecord& recorded, bool already_recorded);

}  // namespace ods::callback::detail
