#pragma once
// Status conditions as kstatus and controller-runtime write them: `type`, `status`
// ("True"/"False"/"Unknown"), CamelCase `reason`, `message`, `observedGeneration`,
// `lastTransitionTime` (changed only when the status flips). `Ready` summarises the object;
// `Reconciling` and `Stalled` are present only while True. Pure functions on the JSON array.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "ods/base/clock.h"

namespace ods::control {

using Json = nlohmann::json;

namespace condition {
inline constexpr std::string_view kReady = "Ready";
inline constexpr std::string_view kReconciling = "Reconciling";
inline constexpr std::string_view kStalled = "Stalled";
inline constexpr std::string_view kTrue = "True";
inline constexpr std::string_view kFalse = "False";
inline constexpr std::string_view kUnknown = "Unknown";
}  // namespace condition

struct Condition {
  std::string type;
  std::string status;  // condition::kTrue, kFalse or kUnknown
  std::string reason;  // CamelCase
  std::string message;
  std::int64_t observed_generation = 0;
};

// Sets `wanted` in `conditions` (an array; null counts as empty), keeping the other types and
// their order. lastTransitionTime is `now` for a new condition or a changed status, else kept.
// A Reconciling or Stalled condition whose status is not True is removed instead.
void set_condition(Json& conditions, const Condition& wanted, TimePoint now);
// Removes the condition of `type` if present.
void remove_condition(Json& conditions, std::string_view type);
// The condition of `type`, or nullptr.
const Json* find_condition(const Json& conditions, std::string_view type);

}  // namespace ods::control
