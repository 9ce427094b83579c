#pragma once
// How long nodes took to build, from the run ledger: the recorded runs' `node_seconds` (the
// seconds dbt reported per node, kept in each recorded run's details by `ods state run` and the
// operator's callback server). Time saved by a run is the sum, over the nodes it reused, of
// each node's last recorded build time (docs/metrics.md, ods_build_seconds_saved_total).
#include <cstddef>
#include <string>
#include <vector>

#include "ods/contracts/state_store.h"

namespace ods::state {

// How many of the newest ledger entries last_build_seconds reads.
inline constexpr std::size_t kBuildSecondsEntries = 50;

// The sum of each node's build time in the newest ledger entry of `scope` that recorded one
// (among the newest kBuildSecondsEntries); a node with no recorded time counts 0. 0 when the
// ledger cannot be read: time saved is an estimate and never stops a run.
double last_build_seconds(contracts::StateStore& store, const std::string& scope,
                          const std::vector<std::string>& nodes);

}  // namespace ods::state
