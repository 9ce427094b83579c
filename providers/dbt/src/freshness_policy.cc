#include "freshness_policy.h"

#include <limits>

namespace ods::dbt::internal {

std::optional<std::int64_t> parse_duration_seconds(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::int64_t unit = 1;
  switch (text.back()) {
    case 's':
      unit = 1;
      text.remove_suffix(1);
      break;
    case 'm':
      unit = 60;
      text.remove_suffix(1);
      break;
    case 'h':
      unit = 3600;
      text.remove_suffix(1);
      break;
    case 'd':
      unit = 86400;
      text.remove_suffix(1);
      break;
    default:
      break;
  }
  if (text.empty() || text.size() > 12) return std::nullopt;
  std::int64_t value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value * unit;
}

planner::FreshnessPolicy read_freshness_policy(const Json* ods, const std::string& node_id,
                                               std::vector<std::string>& warnings) {
  planner::FreshnessPolicy policy;
  if (ods == nullptr || ods->is_null()) return policy;
  if (!ods->is_object()) {
    policy.error = "meta.ods is not a mapping";
    return policy;
  }
  for (const auto& [key, value] : ods->items()) {
    if (key == "lag_tolerance") {
      std::optional<std::int64_t> seconds;
      if (value.is_number_unsigned()) {
        const auto v = value.get<std::uint64_t>();
        if (v <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
          seconds = static_cast<std::int64_t>(v);
        }
      } else if (value.is_string()) {
        seconds = parse_duration_seconds(value.get_ref<const std::string&>());
      }
      if (!seconds) {
        policy.error = "meta.ods.lag_tolerance: " + value.dump() +
                       " is not a duration (use e.g. \"30m\", \"2h\", \"1d\" or a number of seconds)";
        return policy;
      }
      policy.lag_tolerance_seconds = *seconds;
    } else if (key == "require_fresh_data_from") {
      if (value == "all") {
        policy.require_fresh_data_from_all = true;
      } else if (value == "any") {
        policy.require_fresh_data_from_all = false;
      } else {
        policy.error = "meta.ods.require_fresh_data_from: " + value.dump() + " is not \"any\" or \"all\"";
        return policy;
      }
    } else {
      warnings.push_back(node_id + ": meta.ods." + key + " is not an ODS setting; ignored");
    }
  }
  return policy;
}

}  // namespace ods::dbt::internal
