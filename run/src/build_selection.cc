#include "ods/run/build_selection.h"

#include "ods/planner/checks.h"

namespace ods::run {

std::vector<std::string> source_checks_to_run(const planner::ProjectInputs& inputs,
                                              const planner::StateSnapshot* previous,
                                              const std::optional<std::vector<std::string>>& checks_selected) {
  planner::CheckOptions options;
  options.selected = checks_selected;
  std::vector<std::string> out;
  for (const auto& e : planner::plan_checks(inputs, previous, options).entries)
    if (e.resource_type == "source" && e.action == planner::CheckAction::run) out.push_back("source:" + e.name);
  return out;
}

std::vector<std::string> build_selection(const planner::ExecutionPlan& plan,
                                         const std::vector<std::string>& source_checks) {
  std::vector<std::string> out;
  for (const auto& e : plan.entries)
    if (e.action == planner::Action::build) out.push_back(e.name);
  if (!out.empty()) out.insert(out.end(), source_checks.begin(), source_checks.end());
  return out;
}

}  // namespace ods::run
