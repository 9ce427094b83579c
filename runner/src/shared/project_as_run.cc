#include "project_as_run.h"

#include <algorithm>
#include <map>

namespace ods::cli {

namespace {

bool same_code(const planner::NodeInput& a, const planner::NodeInput& b) {
  return a.fingerprint == b.fingerprint && a.parents == b.parents && a.incomplete == b.incomplete &&
         a.always_build == b.always_build && a.checks_digest == b.checks_digest && a.relation == b.relation &&
         a.resource_type == b.resource_type && a.self_contained == b.self_contained;
}

bool same_code(const planner::SourceInput& a, const planner::SourceInput& b) {
  return a.checks_digest == b.checks_digest && a.relation == b.relation;
}

// Adds the names of the items of `planned` and `built` (by id) that differ or are in one only.
template <typename Item>
void add_differences(const std::vector<Item>& planned, const std::vector<Item>& built,
                     std::vector<std::string>& out) {
  std::map<std::string, const Item*> by_id;
  for (const auto& item : built) by_id.emplace(item.id, &item);
  for (const auto& item : planned) {
    auto it = by_id.find(item.id);
    if (it == by_id.end()) {
      out.push_back(item.name);
      continue;
    }
    if (!same_code(item, *it->second)) out.push_back(item.name);
    by_id.erase(it);
  }
  for (const auto& [id, item] : by_id) out.push_back(item->name);
}

}  // namespace

std::vector<std::string> code_differences(const planner::ProjectInputs& planned, const planner::ProjectInputs& built) {
  std::vector<std::string> out;
  add_differences(planned.nodes, built.nodes, out);
  add_differences(planned.sources, built.sources, out);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string name_list(const std::vector<std::string>& names, std::size_t shown) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < shown; ++i) out += (i == 0 ? "" : ", ") + names[i];
  if (names.size() > shown) out += " and " + std::to_string(names.size() - shown) + " more";
  return out;
}

Result<ProjectAsRun> project_as_run(const CommandContext& ctx, const LoadedProject& planned, bool one_parse) {
  ProjectAsRun out;
  if (one_parse) {
    auto written = dbt::read_manifest_metadata(ctx.target_dir / "manifest.json");
    if (!written) return std::unexpected(written.error());
    out.written = std::move(*written);
    return out;
  }
  auto built = load_project(ctx);
  if (!built) return std::unexpected(built.error());
  out.reread = true;
  out.written = built->dbt_project->meta;
  out.changed = code_differences(planned.inputs, built->inputs);
  if (!out.changed.empty()) out.as_run = std::move(*built);
  return out;
}

}  // namespace ods::cli
