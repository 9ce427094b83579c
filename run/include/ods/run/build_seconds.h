#pragma once
// How long nodes took to build, from the run ledger: the recorded runs' `node_seconds` (the
// seconds dbt reported per node, kept in each recorded run's details by `ods state run` and the
// operator's callback server). Time saved by a run is the sum, over the nodes it reused, of
// each node's last recorded build time (docs/metrics.md, ods_build_seconds_saved_total).
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "ods/contracts/state_store.h"
#include "ods/planner/plan.h"
#include "ods/run/evidence_cost.h"

namespace ods::run {

// How many of the newest ledger entries last_build_seconds reads.
inline constexpr std::size_t kBuildSecondsEntries = 50;

// Each of `nodes`' build time in the newest ledger entry of `scope` that recorded one (among
// the newest kBuildSecondsEntries): one read of the ledger, each entry's details parsed once
// (entries without node_seconds not at all), stopping when every node is found. Nodes never
// timed are absent. Empty when the ledger cannot be read: time saved is an estimate and never
// stops a run.
std::map<std::string, double> last_build_seconds(contracts::StateStore& store, const std::string& scope,
                                                 const std::vector<std::string>& nodes);

// The seconds `plan`'s REUSE nodes took when last built (the sum of last_build_seconds).
double time_saved_seconds(contracts::StateStore& store, const std::string& scope, const planner::ExecutionPlan& plan);

// The exact evidence's costs recorded in the newest kBuildSecondsEntries ledger entries of
// `scope` (RunDetails::exact_evidence_seconds and exact_evidence_skipped): each id's newest
// seconds, and whether the newest entry that mentions it skipped it. Empty when the ledger can't
// be read: every exact evidence is then read, as before the rule.
RecordedEvidenceCosts last_evidence_costs(contracts::StateStore& store, const std::string& scope);

}  // namespace ods::run
