#include "ods/run/wave_plans.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "ods/planner/planner.h"

namespace ods::run {

namespace {

void reselect(planner::ExecutionPlan& plan) {
  plan.select.clear();
  for (const auto& e : plan.entries)
    if (e.action == planner::Action::build) plan.select += (plan.select.empty() ? "" : " ") + e.name;
}

}  // namespace

planner::ExecutionPlan only_building(const planner::ExecutionPlan& plan, const std::vector<std::string>& ids) {
  const std::set<std::string> keep(ids.begin(), ids.end());
  planner::ExecutionPlan out = plan;
  std::erase_if(out.entries, [&](const planner::PlanEntry& e) {
    return e.action == planner::Action::build && !keep.contains(e.id);
  });
  reselect(out);
  return out;
}

void merge_replan(planner::ExecutionPlan& whole, const planner::ExecutionPlan& replan) {
  std::unordered_map<std::string, const planner::PlanEntry*> by_id;
  for (const auto& e : replan.entries) by_id.emplace(e.id, &e);
  for (auto& e : whole.entries)
    if (auto it = by_id.find(e.id); it != by_id.end()) e = *it->second;
  reselect(whole);
  for (const auto& w : replan.warnings)
    if (std::find(whole.warnings.begin(), whole.warnings.end(), w) == whole.warnings.end()) whole.warnings.push_back(w);
}

std::vector<std::string> nodes_with_readers(const planner::ProjectInputs& inputs,
                                            const std::vector<std::string>& built) {
  std::set<std::string> parents;
  for (const auto& n : inputs.nodes) parents.insert(n.parents.begin(), n.parents.end());
  std::vector<std::string> out;
  for (const auto& id : built)
    if (parents.contains(id)) out.push_back(id);
  return out;
}

std::vector<std::string> building_ids(const planner::ExecutionPlan& plan) {
  std::vector<std::string> out;
  for (const auto& e : plan.entries)
    if (e.action == planner::Action::build) out.push_back(e.id);
  return out;
}

std::vector<std::string> built_for_code_ids(const planner::ExecutionPlan& plan) {
  std::vector<std::string> out;
  for (const auto& e : plan.entries)
    if (e.action == planner::Action::build && planner::built_for_code(e)) out.push_back(e.id);
  return out;
}

}  // namespace ods::run
