// Reading a failed dbt compile's error text (see compile_failure.h).
#include "ods/dbt/compile_failure.h"

#include <algorithm>
#include <cctype>
#include <deque>
#include <regex>
#include <set>
#include <unordered_map>

namespace ods::dbt {

namespace {

std::size_t indent_of(std::string_view line) {
  const std::size_t first = line.find_first_not_of(" \t");
  return first == std::string_view::npos ? line.size() : first;
}

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    out.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return out;
}

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

// Whether `needle` occurs in `haystack` (both lower case) with no word character either side.
bool names_as_word(const std::string& haystack, const std::string& needle) {
  if (needle.empty()) return false;
  for (std::size_t at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1)) {
    const bool before = at > 0 && is_word_char(haystack[at - 1]) && is_word_char(needle.front());
    const std::size_t end = at + needle.size();
    const bool after = end < haystack.size() && is_word_char(haystack[end]) && is_word_char(needle.back());
    if (!before && !after) return true;
  }
  return false;
}

// The last part of a rendered relation ("db"."schema"."name" -> name), its quotes removed.
std::string identifier_of(std::string_view relation) {
  std::string part;
  bool quoted = false;
  for (char c : relation) {
    if (c == '"' || c == '`') {
      quoted = !quoted;
    } else if (c == '.' && !quoted) {
      part.clear();
    } else {
      part += c;
    }
  }
  return part;
}

}  // namespace

std::vector<CompileFailure> compile_failures(std::string_view error_text) {
  static const std::regex kHeader(R"(^([A-Za-z]+) Error in ([a-z_]+) ([A-Za-z0-9_.-]+) \((.+)\)\s*$)");
  std::vector<CompileFailure> out;
  std::set<std::pair<std::string, std::string>> seen;
  const std::vector<std::string_view> lines = lines_of(error_text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    const std::size_t indent = indent_of(line);
    const std::string trimmed(line.substr(indent));
    std::smatch m;
    if (!std::regex_match(trimmed, m, kHeader)) continue;
    CompileFailure f{m[2].str(), m[3].str(), m[4].str(), trimmed};
    for (std::size_t j = i + 1; j < lines.size() && (lines[j].empty() || indent_of(lines[j]) > indent); ++j) {
      f.message += '\n';
      f.message += lines[j];
    }
    if (seen.emplace(f.resource_type, f.name).second) out.push_back(std::move(f));
  }
  return out;
}

std::optional<std::string> missing_upstream_named(const planner::ProjectInputs& inputs, const std::string& node_id,
                                                  std::string_view message,
                                                  const std::map<std::string, bool>& relations_exist) {
  std::unordered_map<std::string, const planner::NodeInput*> by_id;
  for (const auto& n : inputs.nodes) by_id.emplace(n.id, &n);
  const auto start = by_id.find(node_id);
  if (start == by_id.end()) return std::nullopt;
  const std::string text = lower(message);
  std::deque<const planner::NodeInput*> queue{start->second};
  std::set<std::string> visited{node_id};
  while (!queue.empty()) {
    const planner::NodeInput* node = queue.front();
    queue.pop_front();
    for (const auto& parent_id : node->parents) {
      const auto parent = by_id.find(parent_id);
      if (parent == by_id.end() || !visited.insert(parent_id).second) continue;  // a source, or seen
      const planner::NodeInput& p = *parent->second;
      const auto exists = relations_exist.find(p.id);
      const bool missing = exists != relations_exist.end() && !exists->second;
      if (missing && !p.relation.empty() &&
          (names_as_word(text, lower(p.relation)) || names_as_word(text, lower(identifier_of(p.relation))))) {
        return p.name;
      }
      queue.push_back(&p);
    }
  }
  return std::nullopt;
}

}  // namespace ods::dbt
