#include "ods/dbt/selector.h"

#include <algorithm>
#include <climits>
#include <set>
#include <sstream>
#include <unordered_map>

#include "selector_methods.h"

namespace ods::dbt {

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

// The manifest's attributes, read on first use.
class LazyAttributes {
 public:
  explicit LazyAttributes(std::filesystem::path manifest) : manifest_(std::move(manifest)) {}
  Result<const ManifestAttributes*> get(const std::string& word, const std::string& flag) {
    if (!loaded_) {
      if (manifest_.empty())
        return fail("usage", flag + ": '" + word + "' needs the project's manifest, not given here");
      auto read = read_manifest_attributes(manifest_);
      if (!read) return std::unexpected(read.error());
      attributes_ = std::move(*read);
      loaded_ = true;
    }
    return &attributes_;
  }

 private:
  std::filesystem::path manifest_;
  ManifestAttributes attributes_;
  bool loaded_ = false;
};

// The roots a selector body (without graph operators) names.
Result<std::vector<std::string>> roots_of(const planner::ProjectInputs& inputs, const std::string& body,
                                          const std::string& word, const std::string& flag,
                                          LazyAttributes& attributes) {
  std::vector<std::string> roots;
  if (body.rfind("source:", 0) == 0) {
    std::string name = body.substr(7);
    for (const auto& s : inputs.sources) {
      if (s.name == name || s.name.rfind(name + ".", 0) == 0) roots.push_back(s.id);
    }
  } else if (is_attribute_selector(body)) {
    auto known = attributes.get(word, flag);
    if (!known) return std::unexpected(known.error());
    const NodeAttributes none;
    auto consider = [&](const std::string& id) -> Result<void> {
      const auto found = (*known)->find(id);
      auto matched = attribute_matches(found == (*known)->end() ? none : found->second, body, word, flag);
      if (!matched) return std::unexpected(matched.error());
      if (*matched) roots.push_back(id);
      return {};
    };
    for (const auto& n : inputs.nodes) {
      if (auto considered = consider(n.id); !considered) return std::unexpected(considered.error());
    }
    for (const auto& s : inputs.sources) {
      if (auto considered = consider(s.id); !considered) return std::unexpected(considered.error());
    }
  } else if (body.find(':') != std::string::npos || body.find(',') != std::string::npos ||
             body.find('@') != std::string::npos) {
    return fail("usage", flag + ": selector '" + word +
                             "' is not supported (use names, unique ids, source:<name>, tag:<tag>, path:<path> or "
                             "config.<key>:<value>, with + operators; no a,b intersections or @)");
  } else {
    for (const auto& n : inputs.nodes)
      if (n.name == body || n.id == body) roots.push_back(n.id);
  }
  return roots;
}

// Every node and source id the expression names or reaches through its graph operators.
Result<std::set<std::string>> reached_ids(const planner::ProjectInputs& inputs, const std::string& expression,
                                          const std::filesystem::path& manifest, const std::string& flag) {
  Graph g = graph_of(inputs);
  LazyAttributes attributes(manifest);
  std::set<std::string> selected;
  std::istringstream words(expression);
  std::string word;
  bool any = false;
  while (words >> word) {
    any = true;
    std::string body = word;
    int up = 0, down = 0;
    if (!strip_operators(body, up, down)) return fail("usage", flag + ": can't read selector '" + word + "'");
    auto roots = roots_of(inputs, body, word, flag, attributes);
    if (!roots) return std::unexpected(roots.error());
    if (roots->empty()) return fail("usage", flag + ": '" + word + "' matches no node of the project");
    for (const auto& r : *roots) {
      std::set<std::string> reach{r};  // its own set: a walk stops at ids it has already seen
      if (up) walk(g.parents, r, up, reach);
      if (down) walk(g.children, r, down, reach);
      selected.insert(reach.begin(), reach.end());
    }
  }
  if (!any) return fail("usage", flag + " needs at least one selector");
  return selected;
}

std::vector<std::string> nodes_among(const planner::ProjectInputs& inputs, const std::set<std::string>& ids) {
  std::vector<std::string> nodes;
  for (const auto& n : inputs.nodes)
    if (ids.contains(n.id)) nodes.push_back(n.id);
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

}  // namespace

Result<std::vector<std::string>> resolve_selection(const planner::ProjectInputs& inputs, const std::string& expression,
                                                   const std::filesystem::path& manifest, const std::string& flag) {
  auto reached = reached_ids(inputs, expression, manifest, flag);
  if (!reached) return std::unexpected(reached.error());
  return nodes_among(inputs, *reached);
}

Result<std::vector<std::string>> resolve_check_selection(const planner::ProjectInputs& inputs,
                                                         const std::string& expression,
                                                         const std::filesystem::path& manifest,
                                                         const std::string& flag) {
  auto reached = reached_ids(inputs, expression, manifest, flag);
  if (!reached) return std::unexpected(reached.error());
  return std::vector<std::string>(reached->begin(), reached->end());
}

Result<ResolvedSelection> resolve_select_exclude(const planner::ProjectInputs& inputs, const std::string& select,
                                                 const std::string& exclude, const std::filesystem::path& manifest) {
  std::set<std::string> kept;
  if (!select.empty()) {
    auto reached = reached_ids(inputs, select, manifest, "--select");
    if (!reached) return std::unexpected(reached.error());
    kept = std::move(*reached);
  } else {
    for (const auto& node : inputs.nodes) kept.insert(node.id);
    for (const auto& source : inputs.sources) kept.insert(source.id);
  }
  if (!exclude.empty()) {
    auto dropped = reached_ids(inputs, exclude, manifest, "--exclude");
    if (!dropped) return std::unexpected(dropped.error());
    for (const auto& id : *dropped) kept.erase(id);
  }
  return ResolvedSelection{nodes_among(inputs, kept), std::vector<std::string>(kept.begin(), kept.end())};
}

}  // namespace ods::dbt
