#include "ods/control/conditions.h"

#include "ods/control/time_text.h"

namespace ods::control {

const Json* find_condition(const Json& conditions, std::string_view type) {
  if (!conditions.is_array()) return nullptr;
  for (const Json& item : conditions) {
    if (item.is_object() && item.value("type", "") == type) return &item;
  }
  return nullptr;
}

void remove_condition(Json& conditions, std::string_view type) {
  if (!conditions.is_array()) return;
  for (auto it = conditions.begin(); it != conditions.end(); ++it) {
    if (it->is_object() && it->value("type", "") == type) {
      conditions.erase(it);
      return;
    }
  }
}

void set_condition(Json& conditions, const Condition& wanted, TimePoint now) {
  if (!conditions.is_array()) conditions = Json::array();
  const bool present_only_while_true = wanted.type == condition::kReconciling || wanted.type == condition::kStalled;
  if (present_only_while_true && wanted.status != condition::kTrue) {
    remove_condition(conditions, wanted.type);
    return;
  }
  Json* existing = nullptr;
  for (Json& item : conditions) {
    if (item.is_object() && item.value("type", "") == wanted.type) existing = &item;
  }
  std::string transition = format_time(now);
  if (existing != nullptr && existing->value("status", "") == wanted.status &&
      existing->contains("lastTransitionTime")) {
    transition = (*existing)["lastTransitionTime"].get<std::string>();
  }
  Json value = {{"type", wanted.type},
                {"status", wanted.status},
                {"reason", wanted.reason},
                {"message", wanted.message},
                {"observedGeneration", wanted.observed_generation},
                {"lastTransitionTime", transition}};
  if (existing != nullptr) {
    *existing = std::move(value);
  } else {
    conditions.push_back(std::move(value));
  }
}

}  // namespace ods::control
