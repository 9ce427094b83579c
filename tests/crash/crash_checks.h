#pragma once
// Crash tests: the checks after a kill, shared by every suite that kills something in the
// middle of `ods state run` (ods itself, the PostgreSQL state server, the operator).
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "crash/crash_run.h"
#include "crash/recorded_state.h"
#include "harness/dbt_project.h"

namespace ods::testing {

// The integer in environment variable `name`, or `fallback` when it is unset or empty.
int env_int(const char* name, int fallback);
// The seed in environment variable `variable` (a replay), else one derived from the checked-out
// commit and `variable` (successive commits aim at other moments), else (no git checkout) a random one.
std::uint64_t crash_seed(const char* variable);

// The relations' fingerprints (tests/crash/relations.py: row count and an order-independent
// sum of row hashes each) of the project's DuckDB file.
nlohmann::json relation_rows(const DbtProject& p);
// The same of a copy of `p` with every dbt relation dropped and built again by plain
// `dbt build`: what the warehouse holds when nothing was ever reused or interrupted.
nlohmann::json control_rows(const DbtProject& p);

// The invariants after a kill, given the store's state before the round and after it: "" or
// what broke. The committed snapshots are unchanged; the new ones (none, or one per wave the run
// recorded: each wave of early cutoff commits its own) are each complete, never a mix; the
// ledger grew by at most one entry per new snapshot (one when there is none); the history is
// one chain; in each new snapshot every node recorded as built by its run is one dbt reported
// `success` for that run (in the run_results.json `run` saw dbt write for it) and every other
// node is the entry of the snapshot before it.
std::string check_after_kill(const WatchedRun& run, const RecordedState& before, const RecordedState& after);
// The same, with the statuses dbt reported for ODS run `run_id` coming from `dbt_reported`
// (empty when that run's results are unknown): for runs whose ids are not dbt's invocation id.
// `ledger_per_run` is how many ledger entries one uninterrupted run adds per snapshot (the
// operator's callback server keeps the plan's entry beside the result's).
std::string check_after_kill(const std::function<DbtStatuses(const std::string& run_id)>& dbt_reported,
                             const RecordedState& before, const RecordedState& after, std::size_t ledger_per_run = 1);

// An uninterrupted `ods state run <extra>` on `p` must succeed and leave every relation as
// control_rows(p) has it. "" (and `relations` set to how many were compared) or what differs,
// with the run's log.
std::string converges_to_full_build(const DbtProject& p, const std::vector<std::string>& extra, std::size_t& relations);

}  // namespace ods::testing
