#include "incremental_recompile.h"

#include <chrono>
#include <iostream>
#include <unordered_map>

#include "dbt_steps.h"
#include "flag_names.h"
#include "ods/base/elapsed.h"
#include "ods/run/build_selection.h"

namespace ods::cli {

namespace {

std::string models(std::size_t n) {
  return std::to_string(n) + (n == 1 ? " incremental model" : " incremental models");
}

}  // namespace

dbt::RecompiledCode recompile_first_incremental_builds(
    const CommandContext& ctx, DbtSession& dbt, const dbt::DbtProject& recorded_project,
    const planner::ProjectInputs& recorded, const std::map<std::string, std::string>& node_status,
    const std::optional<std::map<std::string, bool>>& relations_exist,
    const std::map<std::string, std::string>& relation_kinds, double& seconds) {
  const std::vector<std::string> ids =
      dbt::incremental_first_builds(recorded_project, node_status, relations_exist, relation_kinds);
  if (ids.empty()) return {};
  std::unordered_map<std::string, const planner::NodeInput*> by_id;
  for (const auto& n : recorded.nodes) by_id.emplace(n.id, &n);
  const std::filesystem::path dir = ctx.target_dir / "ods-recompile";
  // Only the models: their tests (dbt's indirect selection) are not what is recorded.
  std::vector<std::string> args{"compile", "--indirect-selection", "empty", kFlagSelect};
  for (const auto& id : ids)
    if (auto it = by_id.find(id); it != by_id.end()) args.push_back(run::node_selector(id, it->second->name));
  args.insert(args.end(), {kFlagTargetPath, dir.string()});
  const auto started = std::chrono::steady_clock::now();
  auto compiled = dbt.run(args);
  const auto warn = [&](const std::string& why) {
    *ctx.err << "ods: warning: could not compile the " << models(ids.size()) << " built for the first time again ("
             << why << "); they are recorded with their first-build code and build once more next run\n";
  };
  dbt::RecompiledCode code;
  if (!compiled) {
    warn(compiled.error().message);
  } else if (compiled->interrupted || compiled->exit_code != 0) {
    warn(compiled->interrupted ? "interrupted"
                               : "dbt compile exit code " + std::to_string(compiled->exit_code) + ": " +
                                     compiled->error_text.substr(0, 2000));
  } else if (auto project = dbt::read_dbt_project({dir / "manifest.json", std::nullopt}, {ctx.target, {}}); !project) {
    warn(project.error().message);
  } else {
    code = dbt::recompiled_code(recorded, project->inputs, ids);
  }
  seconds += seconds_since(started);
  if (!code.empty()) {
    step(ctx, "re-compiled " + models(code.size()) + " built for the first time, so the next run compares " +
                  (code.size() == 1 ? "its" : "their") + " incremental SQL");
  }
  if (compiled && code.size() < ids.size() && !compiled->interrupted && compiled->exit_code == 0) {
    *ctx.err << "ods: warning: " << models(ids.size() - code.size())
             << " built for the first time compiled differently from what was built (edited during the run?): "
                "recorded with their first-build code; they build once more next run\n";
  }
  return code;
}

}  // namespace ods::cli
