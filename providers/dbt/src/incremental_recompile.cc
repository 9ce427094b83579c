#include "ods/dbt/incremental_recompile.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <unordered_map>

namespace ods::dbt {

namespace {

// The components manifest_entries.cc derives from a node's compiled code.
constexpr std::array<std::string_view, 2> kCodeComponents = {"sql", "compiled_code"};

bool is_code_component(std::string_view name) {
  return std::find(kCodeComponents.begin(), kCodeComponents.end(), name) != kCodeComponents.end();
}

}  // namespace

std::vector<std::string> incremental_first_builds(const DbtProject& project,
                                                  const std::map<std::string, std::string>& node_status,
                                                  const std::optional<std::map<std::string, bool>>& relations_exist,
                                                  const std::map<std::string, std::string>& relation_kinds) {
  std::vector<std::string> out;
  for (const auto& id : project.incremental_models) {
    const auto status = node_status.find(id);
    if (status == node_status.end() || status->second != "success") continue;
    if (relations_exist) {
      const auto known = relations_exist->find(id);
      const auto kind = relation_kinds.find(id);
      const bool a_table = kind == relation_kinds.end() || kind->second == "table";  // unnamed: as before
      if (known != relations_exist->end() && known->second && a_table) continue;     // compiled as incremental already
    }
    out.push_back(id);
  }
  std::sort(out.begin(), out.end());
  return out;
}

RecompiledCode recompiled_code(const planner::ProjectInputs& recorded, const planner::ProjectInputs& recompiled,
                               const std::vector<std::string>& ids) {
  std::unordered_map<std::string_view, const planner::NodeInput*> recorded_by_id, recompiled_by_id;
  for (const auto& n : recorded.nodes) recorded_by_id.emplace(n.id, &n);
  for (const auto& n : recompiled.nodes) recompiled_by_id.emplace(n.id, &n);
  RecompiledCode out;
  for (const auto& id : ids) {
    const auto was = recorded_by_id.find(id);
    const auto now = recompiled_by_id.find(id);
    if (was == recorded_by_id.end() || now == recompiled_by_id.end()) continue;
    const planner::NodeInput& before = *was->second;
    const planner::NodeInput& after = *now->second;
    if (!after.incomplete.empty() || !after.compile_needs_upstream.empty()) continue;
    if (after.raw_digest != before.raw_digest) continue;
    std::map<std::string, std::string> code;
    bool same_parse = true;
    for (const auto& [name, digest] : after.fingerprint.components) {
      if (is_code_component(name)) {
        code[name] = digest;
        continue;
      }
      const auto other = before.fingerprint.components.find(name);
      same_parse = same_parse && other != before.fingerprint.components.end() && other->second == digest;
    }
    if (same_parse && !code.empty()) out[id] = std::move(code);
  }
  return out;
}

void take_recompiled_code(planner::ProjectInputs& inputs, const RecompiledCode& code) {
  if (code.empty()) return;
  for (auto& node : inputs.nodes) {
    const auto it = code.find(node.id);
    if (it == code.end()) continue;
    for (const auto& [name, digest] : it->second) node.fingerprint.components[name] = digest;
  }
}

}  // namespace ods::dbt
