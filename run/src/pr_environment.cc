#include "ods/run/pr_environment.h"

#include <cctype>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>

#include "ods/planner/planner.h"
#include "ods/planner/reason_codes.h"

namespace ods::run {

namespace {

// Built because the PR's code differs from production's (or is not fully known).
bool differs_from_production(const planner::PlanEntry& e) {
  if (e.action != planner::Action::build || e.reasons.empty()) return false;
  return planner::built_for_code(e) || e.reasons.front().code == planner::reason::kReadsRunContext;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

PrSelection pr_selection(const planner::ProjectInputs& inputs, const planner::ExecutionPlan& prod_plan,
                         const std::optional<std::map<std::string, bool>>& relations_exist) {
  std::unordered_map<std::string, const planner::NodeInput*> nodes;
  for (const auto& n : inputs.nodes) nodes.emplace(n.id, &n);
  auto parents_of = [&](const std::string& id) -> const std::vector<std::string>& {
    static const std::vector<std::string> kNone;
    auto it = nodes.find(id);
    return it == nodes.end() ? kNone : it->second->parents;
  };

  PrSelection out;
  out.plan = prod_plan;
  out.plan.warnings = prod_plan.warnings;
  std::set<std::string> built;
  std::unordered_map<std::string, std::string> name_of;
  for (const auto& e : prod_plan.entries) name_of.emplace(e.id, e.name);
  // Entries come in DAG order (by depth): a node's parents are decided before it.
  for (auto& e : out.plan.entries) {
    if (differs_from_production(e)) {
      built.insert(e.id);
      continue;
    }
    std::vector<std::string> built_parents;
    for (const auto& p : parents_of(e.id))
      if (built.contains(p)) built_parents.push_back(name_of.contains(p) ? name_of[p] : p);
    if (built_parents.empty()) continue;
    built.insert(e.id);
    e.action = planner::Action::build;
    e.reasons = {{std::string(planner::reason::kUpstreamCodeChanged),
                  "reads " + joined(built_parents) + ", which this PR environment builds from the PR's code"}};
  }
  // A node read from production must have its relation there; else it is built here too.
  for (bool grew = true; grew;) {
    grew = false;
    std::set<std::string> read;
    for (const auto& b : built)
      for (const auto& p : parents_of(b)) read.insert(p);
    for (auto& e : out.plan.entries) {
      if (built.contains(e.id) || !read.contains(e.id)) continue;
      std::optional<bool> exists;
      if (relations_exist) {
        if (auto it = relations_exist->find(e.id); it != relations_exist->end()) exists = it->second;
      }
      if (exists.value_or(false)) continue;
      const std::string relation = nodes.contains(e.id) ? nodes[e.id]->relation : e.name;
      e.action = planner::Action::build;
      e.reasons = {exists.has_value() ? planner::Reason{std::string(planner::reason::kRelationMissing),
                                                        "production's relation " + relation +
                                                            " no longer exists, so this PR environment builds it"}
                                      : planner::Reason{std::string(planner::reason::kRelationUnverified),
                                                        "production's relation " + relation +
                                                            " could not be checked, so this PR environment builds it"}};
      built.insert(e.id);
      grew = true;
    }
  }
  std::set<std::string> read_by_built;
  for (const auto& b : built)
    for (const auto& p : parents_of(b)) read_by_built.insert(p);
  out.plan.select.clear();
  for (auto& e : out.plan.entries) {
    if (built.contains(e.id)) {
      e.action = planner::Action::build;
      out.plan.select += (out.plan.select.empty() ? "" : " ") + e.name;
      continue;
    }
    e.action = planner::Action::reuse;
    if (read_by_built.contains(e.id)) {
      out.from_production.push_back(e.id);
      const std::string relation = nodes.contains(e.id) ? nodes[e.id]->relation : e.name;
      e.reasons = {{std::string(kFromProduction),
                    "code unchanged since production's last build: the PR's models read production's " + relation}};
    } else {
      e.reasons = {{std::string(kNotRead), "code unchanged and nothing this PR environment builds reads it"}};
    }
  }
  return out;
}

namespace {

std::string folded(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace

std::optional<std::string> first_production_relation(const planner::ProjectInputs& prod_inputs,
                                                     const planner::ProjectInputs& pr_inputs,
                                                     const PrSelection& selection, bool cloned) {
  std::set<std::string> production;
  for (const auto& n : prod_inputs.nodes)
    if (!n.relation.empty()) production.insert(folded(n.relation));
  std::map<std::string, std::string> pr_relation;
  for (const auto& n : pr_inputs.nodes) pr_relation[n.id] = n.relation;
  const std::set<std::string> from_production(selection.from_production.begin(), selection.from_production.end());
  for (const auto& e : selection.plan.entries) {
    const bool written = e.action == planner::Action::build || (cloned && from_production.contains(e.id));
    if (!written) continue;
    const auto it = pr_relation.find(e.id);
    if (it == pr_relation.end() || it->second.empty()) continue;
    if (production.contains(folded(it->second))) return e.id + " (" + it->second + ")";
  }
  return std::nullopt;
}

}  // namespace ods::run
