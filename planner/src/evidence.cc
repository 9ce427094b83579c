// Names of the planner's enums, as they appear in JSON and in output.
#include "ods/planner/evidence.h"

#include <array>

#include "ods/planner/plan.h"

namespace ods::planner {

namespace {
constexpr std::array<std::string_view, 5> kExactnessNames = {"none", "inferred", "proxy", "semantic", "exact"};
}

std::string_view to_string(Exactness e) { return kExactnessNames[static_cast<int>(e)]; }

std::optional<Exactness> exactness_from_string(std::string_view s) {
  for (std::size_t i = 0; i < kExactnessNames.size(); ++i) {
    if (kExactnessNames[i] == s) return static_cast<Exactness>(i);
  }
  return std::nullopt;
}

std::string_view to_string(Action a) { return a == Action::build ? "build" : "reuse"; }

int ExecutionPlan::count(Action a) const {
  int n = 0;
  for (const auto& e : entries) n += e.action == a ? 1 : 0;
  return n;
}

}  // namespace ods::planner
