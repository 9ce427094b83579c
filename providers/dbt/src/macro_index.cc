#include "macro_index.h"

#include <algorithm>
#include <unordered_set>

namespace ods::dbt::internal {
namespace {

// Adapters whose plugin extends another's macros (their dbt_<parent> package ships with them).
std::vector<std::string> parent_adapters(const std::string& adapter) {
  if (adapter == "redshift" || adapter == "materialize") return {"postgres"};
  return {};
}

void sort_unique(std::vector<std::string>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

// "macro.<package>.<name>" -> "<package>".
std::string_view package_of_id(std::string_view id) {
  constexpr std::string_view kPrefix = "macro.";
  if (id.substr(0, kPrefix.size()) != kPrefix) return {};
  id.remove_prefix(kPrefix.size());
  return id.substr(0, id.find('.'));
}

}  // namespace

MacroIndex::MacroIndex(const std::unordered_map<std::string, MacroRecord>& macros, const ManifestMeta& meta)
    : macros_(macros), root_project_(meta.project_name) {
  if (!meta.adapter_type.empty()) {
    adapter_types_.push_back(meta.adapter_type);
    for (auto& parent : parent_adapters(meta.adapter_type)) adapter_types_.push_back(std::move(parent));
  }
  internal_packages_.push_back("dbt");
  for (const auto& type : adapter_types_) internal_packages_.push_back("dbt_" + type);
  for (const auto& [id, macro] : macros_) {
    if (!is_internal_package(macro.package_name)) by_name_[macro.name].push_back(id);
  }
  for (auto& [name, ids] : by_name_) sort_unique(ids);
}

bool MacroIndex::is_internal_package(std::string_view package) const {
  return std::find(internal_packages_.begin(), internal_packages_.end(), package) != internal_packages_.end();
}

const MacroRecord* MacroIndex::find(const std::string& id) const {
  const auto it = macros_.find(id);
  return it == macros_.end() ? nullptr : &it->second;
}

std::string MacroIndex::display_name(const std::string& id) {
  constexpr std::string_view kPrefix = "macro.";
  return id.starts_with(kPrefix) ? id.substr(kPrefix.size()) : id;
}

const MacroIndex::Closure& MacroIndex::closure(const std::vector<std::string>& seeds) {
  std::string key;
  for (const auto& seed : seeds) {
    key += seed;
    key.push_back('\n');
  }
  if (const auto hit = closures_.find(key); hit != closures_.end()) return hit->second;
  Closure result;
  std::unordered_set<std::string> visited;
  std::vector<const std::string*> stack;
  for (const auto& seed : seeds) {
    if (visited.insert(seed).second) stack.push_back(&seed);
  }
  while (!stack.empty()) {
    const std::string& id = *stack.back();
    stack.pop_back();
    const MacroRecord* macro = find(id);
    if (macro == nullptr) {
      if (!is_internal_package(package_of_id(id))) result.missing.push_back(id);
      continue;
    }
    if (!is_internal_package(macro->package_name)) result.present.push_back(id);
    for (const auto& dep : macro->depends) {
      if (visited.insert(dep).second) stack.push_back(&dep);
    }
  }
  sort_unique(result.present);
  sort_unique(result.missing);
  return closures_.emplace(std::move(key), std::move(result)).first->second;
}

const std::vector<std::string>& MacroIndex::materialization_macros(const std::string& materialized) {
  if (const auto hit = materializations_.find(materialized); hit != materializations_.end()) return hit->second;
  std::vector<std::string> out;
  std::vector<std::string> names;
  names.reserve(adapter_types_.size() + 1);
  for (const auto& type : adapter_types_) names.push_back("materialization_" + materialized + "_" + type);
  names.push_back("materialization_" + materialized + "_default");
  for (const auto& name : names) {
    if (const auto it = by_name_.find(name); it != by_name_.end()) {
      out.insert(out.end(), it->second.begin(), it->second.end());
    }
  }
  return materializations_.emplace(materialized, std::move(out)).first->second;
}

const std::vector<std::string>& MacroIndex::generate_name_macros(const std::string& package) {
  if (const auto hit = generate_names_.find(package); hit != generate_names_.end()) return hit->second;
  std::vector<std::string> out;
  for (const char* name : {"generate_schema_name", "generate_alias_name", "generate_database_name"}) {
    const auto it = by_name_.find(name);
    if (it == by_name_.end()) continue;
    for (const auto& id : it->second) {
      const std::string& owner = macros_.at(id).package_name;
      if (owner == root_project_ || owner == package) out.push_back(id);
    }
  }
  return generate_names_.emplace(package, std::move(out)).first->second;
}

}  // namespace ods::dbt::internal
