#include "keyed_compile.h"

#include "flag_names.h"
#include "ods/dbt/artifacts.h"

namespace ods::cli {

Result<CompileScope> compile_scope_setting(const ParsedArgs& args, const CommandContext& ctx) {
  const bool flag = args.has(kFlagCompile);
  const std::string value = flag ? args.get(kFlagCompile) : ctx.env.getenv("ODS_COMPILE");
  if (value.empty() || value == "changed") return CompileScope::changed;
  if (value == "all") return CompileScope::all;
  return fail("usage", std::string(flag ? kFlagCompile : "ODS_COMPILE") + " is '" + value +
                           "': it must be 'changed' (compile only the nodes whose compile key changed, the default) "
                           "or 'all' (compile the whole project).");
}

CompilePlan plan_compile(const planner::ProjectInputs& parsed, const planner::StateSnapshot* recorded) {
  CompilePlan plan;
  for (const auto& node : parsed.nodes) {
    if (node.resource_type == "seed") continue;
    const planner::NodeState* state = nullptr;
    if (recorded != nullptr && recorded->target_identity == parsed.target_identity) {
      if (const auto it = recorded->nodes.find(node.id); it != recorded->nodes.end()) state = &it->second;
    }
    if (state != nullptr && !node.compile_key.empty() && state->compile_key == node.compile_key &&
        state->fingerprint.components.contains("sql")) {
      plan.stands.emplace(node.id, state);
    } else {
      plan.compile.push_back(node.name);
    }
  }
  return plan;
}

std::size_t apply_recorded_sql(planner::ProjectInputs& inputs, const CompilePlan& plan) {
  std::size_t taken = 0;
  for (auto& node : inputs.nodes) {
    const auto it = plan.stands.find(node.id);
    if (it == plan.stands.end()) continue;
    if (dbt::take_recorded_sql(node, it->second->fingerprint.components.at("sql"), it->second->run_id)) ++taken;
  }
  return taken;
}

}  // namespace ods::cli
