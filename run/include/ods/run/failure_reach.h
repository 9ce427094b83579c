#pragma once
// What `dbt build` skips below failures, decided once for a run built in waves (early cutoff,
// docs/early-cutoff.md#a-failed-wave): after a wave's build failed, the nodes held back behind
// it that lie below a failure are skipped, as dbt build skips them, and the others still build,
// so the relations end as `dbt build` leaves them. dbt's rule: a node is skipped when a node it
// reads, directly or not, failed or was skipped; and a failed test gates the nodes that read,
// directly or not, every node and source the test reads (dbt's test edges,
// dbt/compilation.py add_test_edges). Pure.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ods/planner/inputs.h"

namespace ods::run {

struct FailureReach {
  std::set<std::string> below;  // planned node ids that lie below a failure (the failures not included)
  // A failed test reads no planned node or source that `checks_of` knows: what it gates is not
  // known, so every node counts as below it (rule 2: never build what dbt build would skip).
  bool unknown = false;
  bool contains(const std::string& id) const { return unknown || below.contains(id); }
};

// The nodes of `inputs` below `failed_nodes` (planned node ids dbt did not build: failed or
// skipped) and `failed_checks` (test ids that failed or errored). `checks_of`: planned node or
// source id -> the ids of the tests that read it (dbt::DbtProject::tests_of).
FailureReach reach_of_failures(const planner::ProjectInputs& inputs,
                               const std::map<std::string, std::vector<std::string>>& checks_of,
                               const std::vector<std::string>& failed_nodes,
                               const std::vector<std::string>& failed_checks);

}  // namespace ods::run
