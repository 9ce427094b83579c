// The `ods state test --format json` "checks" document.
#include "json_values.h"
#include "ods/planner/checks.h"

namespace ods::planner {

std::string to_json(const CheckPlan& plan, bool pretty) {
  using nlohmann::json;
  json entries = json::array();
  for (const auto& e : plan.entries) {
    entries.push_back({{"id", e.id},
                       {"name", e.name},
                       {"resource_type", e.resource_type},
                       {"action", to_string(e.action)},
                       {"reasons", internal::reasons_to_json(e.reasons)},
                       {"evidence", internal::evidence_list_to_json(e.evidence)}});
  }
  json doc{{"scope", plan.scope},
           {"entries", entries},
           {"warnings", plan.warnings},
           {"summary",
            {{"run", plan.count(CheckAction::run)},
             {"skip", plan.count(CheckAction::skip)},
             {"without_checks", plan.without_checks}}}};
  return pretty ? doc.dump(2) : doc.dump();
}

}  // namespace ods::planner
