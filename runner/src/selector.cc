#include "selector.h"

#include <algorithm>
#include <climits>
#include <set>
#include <sstream>
#include <unordered_map>

namespace ods::cli {

namespace {

struct Graph {
  std::unordered_map<std::string, std::vector<std::string>> parents, children;
};

Graph graph_of(const planner::ProjectInputs& inputs) {
  Graph g;
  for (const auto& n : inputs.nodes) {
    for (const auto& p : n.parents) {
      g.parents[n.id].push_back(p);
      g.children[p].push_back(n.id);
    }
  }
  return g;
}

void walk(const std::unordered_map<std::string, std::vector<std::string>>& edges, const std::string& start, int depth,
          std::set<std::string>& out) {
  std::vector<std::pair<std::string, int>> stack{{start, 0}};
  while (!stack.empty()) {
    auto [id, d] = stack.back();
    stack.pop_back();
    if (d >= depth) continue;
    auto it = edges.find(id);
    if (it == edges.end()) continue;
    for (const auto& next : it->second) {
      if (out.insert(next).second) stack.push_back({next, d + 1});
    }
  }
}

// Parses "3+" / "+" prefixes and "+" / "+2" suffixes. Returns false on a malformed selector.
bool strip_operators(std::string& s, int& up, int& down) {
  up = down = 0;
  std::size_t i = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  if (i < s.size() && s[i] == '+') {
    up = i == 0 ? INT_MAX : std::stoi(s.substr(0, i));
    s = s.substr(i + 1);
  }
  if (auto plus = s.rfind('+'); plus != std::string::npos) {
    std::string suffix = s.substr(plus + 1);
    if (!suffix.empty() && suffix.find_first_not_of("0123456789") != std::string::npos) return false;
    down = suffix.empty() ? INT_MAX : std::stoi(suffix);
    s = s.substr(0, plus);
  }
  return !s.empty() && s.find('+') == std::string::npos;
}

// Every node and source id the expression names or reaches through its graph operators.
Result<std::set<std::string>> reached_ids(const planner::ProjectInputs& inputs, const std::string& expression) {
  Graph g = graph_of(inputs);
  std::set<std::string> selected;
  std::istringstream words(expression);
  std::string word;
  bool any = false;
  while (words >> word) {
    any = true;
    std::string body = word;
    int up = 0, down = 0;
    if (!strip_operators(body, up, down)) return fail("usage", "--select: can't read selector '" + word + "'");
    std::vector<std::string> roots;
    if (body.rfind("source:", 0) == 0) {
      std::string name = body.substr(7);
      for (const auto& s : inputs.sources) {
        if (s.name == name || s.name.rfind(name + ".", 0) == 0) roots.push_back(s.id);
      }
    } else if (body.find(':') != std::string::npos) {
      return fail("usage", "--select: selector method in '" + word +
                               "' is not supported (use names, unique ids or source:<name>, with + operators)");
    } else {
      for (const auto& n : inputs.nodes)
        if (n.name == body || n.id == body) roots.push_back(n.id);
    }
    if (roots.empty()) return fail("usage", "--select: '" + word + "' matches no node of the project");
    for (const auto& r : roots) {
      std::set<std::string> reach{r};  // its own set: a walk stops at ids it has already seen
      if (up) walk(g.parents, r, up, reach);
      if (down) walk(g.children, r, down, reach);
      selected.insert(reach.begin(), reach.end());
    }
  }
  if (!any) return fail("usage", "--select needs at least one selector");
  return selected;
}

}  // namespace

Result<std::vector<std::string>> resolve_selection(const planner::ProjectInputs& inputs,
                                                   const std::string& expression) {
  auto reached = reached_ids(inputs, expression);
  if (!reached) return std::unexpected(reached.error());
  std::vector<std::string> nodes;
  for (const auto& n : inputs.nodes)
    if (reached->contains(n.id)) nodes.push_back(n.id);
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

Result<std::vector<std::string>> resolve_check_selection(const planner::ProjectInputs& inputs,
                                                         const std::string& expression) {
  auto reached = reached_ids(inputs, expression);
  if (!reached) return std::unexpected(reached.error());
  return std::vector<std::string>(reached->begin(), reached->end());
}

}  // namespace ods::cli
