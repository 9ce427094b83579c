#include "selector.h"

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

}  // namespace

Result<std::vector<std::string>> resolve_selection(const planner::ProjectInputs& inputs, const std::string& expression) {
  Graph g = graph_of(inputs);
  std::set<std::string> node_ids;
  for (const auto& n : inputs.nodes) node_ids.insert(n.id);
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
      std::set<std::string> reach{r};
      if (up) walk(g.parents, r, up, reach);
      if (down) walk(g.children, r, down, reach);
      for (const auto& id : reach)
        if (node_ids.contains(id)) selected.insert(id);
    }
  }
  if (!any) return fail("usage", "--select needs at least one selector");
  return std::vector<std::string>(selected.begin(), selected.end());
}

}  // namespace ods::cli
