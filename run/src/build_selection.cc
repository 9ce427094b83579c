#include "ods/run/build_selection.h"

#include <map>
#include <set>

#include "ods/planner/checks.h"

namespace ods::run {

std::string node_selector(const std::string& id, const std::string& name) {
  const std::string suffix_start = "." + name + ".v";
  const auto at = id.rfind(suffix_start);
  if (at == std::string::npos) return name;
  const std::string version = id.substr(at + suffix_start.size());
  if (version.empty() || version.find_first_not_of("0123456789") != std::string::npos) return name;
  return name + ".v" + version;
}

planner::CheckPlan run_checks(const planner::ProjectInputs& inputs, const planner::StateSnapshot* previous,
                              const planner::ExecutionPlan& plan,
                              const std::optional<std::vector<std::string>>& checks_selected) {
  planner::CheckOptions options;
  options.selected = checks_selected;
  return planner::plan_run_checks(inputs, previous, plan, options);
}

std::vector<std::string> check_selection(const planner::CheckPlan& checks) {
  std::vector<std::string> out;
  for (const auto& e : checks.entries) {
    if (e.action != planner::CheckAction::run) continue;
    out.push_back(e.resource_type == "source" ? "source:" + e.name
                                              : node_selector(e.id, e.name) + ",resource_type:test");
  }
  return out;
}

std::vector<std::string> build_selection(const planner::ProjectInputs& inputs, const planner::ExecutionPlan& plan,
                                         const std::vector<std::string>& checks) {
  std::map<std::string, std::set<std::string>> building;  // resource type -> BUILD node ids
  for (const auto& e : plan.entries)
    if (e.action == planner::Action::build) building[e.resource_type].insert(e.id);
  if (building.empty()) return checks;
  const auto whole_type = [&](const std::string& type, const std::set<std::string>& ids) {
    if (type.empty()) return false;
    for (const auto& n : inputs.nodes)
      if (n.resource_type == type && !ids.contains(n.id)) return false;
    return true;
  };
  std::vector<std::string> out;
  std::set<std::string> whole;
  for (const auto& [type, ids] : building)
    if (whole_type(type, ids)) {
      whole.insert(type);
      out.push_back("resource_type:" + type);
    }
  for (const auto& e : plan.entries)
    if (e.action == planner::Action::build && !whole.contains(e.resource_type))
      out.push_back(node_selector(e.id, e.name));
  out.insert(out.end(), checks.begin(), checks.end());
  return out;
}

}  // namespace ods::run
