#include "dag.h"

#include <algorithm>
#include <queue>

namespace ods::planner::internal {

namespace {

// Nodes left with unresolved parents after Kahn's algorithm: walk parents to find one cycle.
std::string describe_cycle(const ProjectInputs& inputs, const DagOrder& dag, const std::vector<int>& pending) {
  std::size_t start = 0;
  while (pending[start] == 0) ++start;
  std::vector<std::size_t> path;
  std::vector<int> seen(inputs.nodes.size(), -1);
  std::size_t cur = start;
  while (seen[cur] < 0) {
    seen[cur] = static_cast<int>(path.size());
    path.push_back(cur);
    for (const auto& p : inputs.nodes[cur].parents) {
      auto it = dag.index_of.find(p);
      if (it != dag.index_of.end() && pending[it->second] > 0) {
        cur = it->second;
        break;
      }
    }
  }
  std::string out;
  for (std::size_t i = static_cast<std::size_t>(seen[cur]); i < path.size(); ++i) {
    out += inputs.nodes[path[i]].id + " -> ";
  }
  return out + inputs.nodes[cur].id;
}

}  // namespace

Result<DagOrder> dag_order(const ProjectInputs& inputs) {
  DagOrder dag;
  const std::size_t n = inputs.nodes.size();
  dag.index_of.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!dag.index_of.emplace(inputs.nodes[i].id, i).second) {
      return fail("invalid_inputs", "node " + inputs.nodes[i].id + " appears twice in the project inputs");
    }
  }
  std::vector<int> pending(n, 0);
  std::vector<std::vector<std::size_t>> children(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (const auto& p : inputs.nodes[i].parents) {
      auto it = dag.index_of.find(p);
      if (it == dag.index_of.end()) continue;
      ++pending[i];
      children[it->second].push_back(i);
    }
  }
  dag.depth.assign(n, 0);
  std::queue<std::size_t> ready;
  for (std::size_t i = 0; i < n; ++i)
    if (pending[i] == 0) ready.push(i);
  while (!ready.empty()) {
    std::size_t i = ready.front();
    ready.pop();
    dag.order.push_back(i);
    for (std::size_t c : children[i]) {
      dag.depth[c] = std::max(dag.depth[c], dag.depth[i] + 1);
      if (--pending[c] == 0) ready.push(c);
    }
  }
  if (dag.order.size() != n) {
    return fail("cycle", "the project's graph has a cycle: " + describe_cycle(inputs, dag, pending));
  }
  return dag;
}

}  // namespace ods::planner::internal
