#include "ods/run/failure_reach.h"

#include <unordered_map>

namespace ods::run {

namespace {

using Children = std::unordered_map<std::string, std::vector<std::string>>;

// The planned nodes that read `from`, directly or not (`from` not included).
std::set<std::string> descendants(const std::string& from, const Children& children) {
  std::set<std::string> out;
  std::vector<std::string> stack{from};
  while (!stack.empty()) {
    const std::string id = std::move(stack.back());
    stack.pop_back();
    const auto it = children.find(id);
    if (it == children.end()) continue;
    for (const auto& child : it->second)
      if (out.insert(child).second) stack.push_back(child);
  }
  return out;
}

}  // namespace

FailureReach reach_of_failures(const planner::ProjectInputs& inputs,
                               const std::map<std::string, std::vector<std::string>>& checks_of,
                               const std::vector<std::string>& failed_nodes,
                               const std::vector<std::string>& failed_checks) {
  Children children;
  for (const auto& n : inputs.nodes)
    for (const auto& p : n.parents) children[p].push_back(n.id);
  std::map<std::string, std::vector<std::string>> reads_of_check;  // test id -> what it reads
  for (const auto& [read, checks] : checks_of)
    for (const auto& check : checks) reads_of_check[check].push_back(read);

  FailureReach reach;
  for (const auto& id : failed_nodes)
    for (const auto& d : descendants(id, children)) reach.below.insert(d);
  for (const auto& check : failed_checks) {
    const auto reads = reads_of_check.find(check);
    if (reads == reads_of_check.end() || reads->second.empty()) {
      reach.unknown = true;
      continue;
    }
    // Gated: the nodes below every node and source the test reads (with their descendants,
    // which are below every one of them too).
    std::set<std::string> gated = descendants(reads->second.front(), children);
    for (std::size_t i = 1; i < reads->second.size() && !gated.empty(); ++i) {
      const auto other = descendants(reads->second[i], children);
      std::erase_if(gated, [&](const std::string& id) { return !other.contains(id); });
    }
    reach.below.insert(gated.begin(), gated.end());
  }
  return reach;
}

}  // namespace ods::run
