// `ods state diff`: what changed in each node's code since its last recorded build, as the next
// `ods state run` sees it.
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

#include "commands.h"
#include "next_run_plan.h"
#include "project_loader.h"
#include "state_access.h"

namespace ods::cli {

int cmd_diff(const ParsedArgs& args, CommandContext& ctx) {
  // The fingerprints the next `ods state run` compares, made as it makes them (next_run_plan.h):
  // the nodes whose compile key stands carry their recorded `sql`, as in the run, where target/
  // alone has no compiled code for them. Without a state database: nothing recorded yet.
  auto next = plan_next_run(args, ctx, NextRunUse::dry_run);
  if (!next) return next.error();
  const LoadedProject* project = &next->prepared.project;
  const std::string& scope = next->scope;
  const std::optional<Head>& head = next->head;
  nlohmann::json changes = nlohmann::json::array();
  std::set<std::string> current;
  for (const auto& node : project->inputs.nodes) {
    current.insert(node.id);
    const planner::NodeState* before = nullptr;
    if (head) {
      auto it = head->snapshot.nodes.find(node.id);
      if (it != head->snapshot.nodes.end()) before = &it->second;
    }
    if (!before) {
      changes.push_back({{"id", node.id}, {"change", "not_in_state"}, {"detail", "no recorded build"}});
      continue;
    }
    auto d = planner::diff(before->fingerprint, node.fingerprint);
    if (!d.empty()) {
      changes.push_back({{"id", node.id},
                         {"change", "code"},
                         {"detail", d.describe()},
                         {"changed", d.changed},
                         {"added", d.added},
                         {"removed", d.removed}});
    } else if (!node.raw_digest.empty() && node.raw_digest != before->raw_digest) {
      changes.push_back({{"id", node.id}, {"change", "formatting"}, {"detail", "only formatting changed"}});
    }
  }
  if (head) {
    for (const auto& [id, _] : head->snapshot.nodes)
      if (!current.contains(id))
        changes.push_back({{"id", id}, {"change", "removed"}, {"detail", "no longer in the project"}});
  }
  if (ctx.format == "json") {
    *ctx.out << nlohmann::json{{"scope", scope}, {"changes", changes}}.dump(2) << "\n";
    return kExitOk;
  }
  if (!head) *ctx.out << "No state recorded yet for " << scope << ".\n";
  if (changes.empty()) *ctx.out << "No code changes since the recorded state of " << scope << ".\n";
  for (const auto& c : changes)
    *ctx.out << "  " << c["id"].get<std::string>() << ": " << c["detail"].get<std::string>() << "\n";
  return kExitOk;
}

}  // namespace ods::cli
