#pragma once
// A node's freshness policy, read from `config.meta.ods` (not fingerprinted: policy
// doesn't change what gets built):
//   lag_tolerance: "30s" | "30m" | "2h" | "1d" | "<seconds>" | <seconds> (non-negative)
//   require_fresh_data_from: "any" (default) | "all"
#include <optional>
#include <string>
#include <vector>

#include "json_stream.h"
#include "ods/planner/inputs.h"

namespace ods::dbt::internal {

// `ods` is the value of meta.ods (nullptr: absent). An unreadable policy sets
// policy.error (the planner then can't honour it: BUILD). Unknown keys are reported in
// `warnings` ("<node id>: meta.ods.<key> is not an ODS setting; ignored"). Pure.
planner::FreshnessPolicy read_freshness_policy(const Json* ods, const std::string& node_id,
                                               std::vector<std::string>& warnings);

// Seconds in a lag_tolerance string, or nullopt when it is not one. Pure.
std::optional<std::int64_t> parse_duration_seconds(std::string_view text);

}  // namespace ods::dbt::internal
