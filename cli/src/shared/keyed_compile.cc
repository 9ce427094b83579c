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

std::vector<std::string> confirm_incremental_keys(planner::ProjectInputs& inputs,
                                                  const std::optional<std::map<std::string, bool>>& relations_exist,
                                                  const std::map<std::string, std::string>& relation_kinds,
                                                  const std::string& full_refresh_env,
                                                  std::map<std::string, std::string>* set_aside) {
  std::vector<std::string> taken_back;
  for (auto& node : inputs.nodes) {
    if (!node.compile_key_assumes_incremental || node.compile_key.empty()) continue;
    std::string why;
    const auto exists =
        relations_exist ? relations_exist->find(node.id) : std::map<std::string, bool>::const_iterator{};
    const auto kind = relation_kinds.find(node.id);
    if (!full_refresh_env.empty()) {
      why = "DBT_FULL_REFRESH is set, so is_incremental() may be false";
    } else if (!relations_exist || exists == relations_exist->end()) {
      why = "the probe could not check its relation " + node.relation;
    } else if (!exists->second) {
      why = "its relation " + node.relation + " does not exist, so is_incremental() is false";
      if (set_aside != nullptr) (*set_aside)[node.id] = node.compile_key;
    } else if (kind == relation_kinds.end() || kind->second != "table") {
      why = "its relation " + node.relation + " is " +
            (kind == relation_kinds.end() ? std::string("of a kind the listing doesn't say") : "a " + kind->second) +
            ", not a table, so is_incremental() may be false";
      if (set_aside != nullptr && kind != relation_kinds.end()) (*set_aside)[node.id] = node.compile_key;
    } else {
      continue;  // is_incremental() is true, as the key holds
    }
    node.compile_key.clear();
    node.compile_key_assumes_incremental = false;
    if (node.sql_from_run.empty()) continue;
    node.fingerprint.components.erase("sql");
    node.sql_from_run.clear();
    node.incomplete.push_back("its recorded compiled SQL is the incremental form (is_incremental() true), but " + why +
                              ": not compiled in this run, so its SQL is unknown");
    taken_back.push_back(node.id);
  }
  return taken_back;
}

std::size_t set_aside_keys_of_recompiled(planner::ProjectInputs& inputs,
                                         const std::map<std::string, std::map<std::string, std::string>>& recompiled,
                                         const std::map<std::string, std::string>& set_aside) {
  std::size_t given = 0;
  for (auto& node : inputs.nodes) {
    const auto key = set_aside.find(node.id);
    if (key == set_aside.end() || !node.compile_key.empty() || !recompiled.contains(node.id)) continue;
    node.compile_key = key->second;
    ++given;
  }
  return given;
}

}  // namespace ods::cli
