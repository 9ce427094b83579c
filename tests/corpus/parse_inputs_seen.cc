#include "corpus/parse_inputs_seen.h"

#include <fstream>
#include <functional>
#include <iterator>
#include <set>

namespace ods::testing {

namespace {

bool read_by_parse(const std::filesystem::path& relative) {
  static const std::set<std::string> kExtensions{".sql", ".yml", ".yaml", ".csv", ".md", ".py"};
  const std::string first = relative.begin()->string();
  if (first == "target" || first == "logs" || (!first.empty() && first[0] == '.')) return false;
  return kExtensions.contains(relative.extension().string());
}

}  // namespace

std::map<std::string, std::size_t> parse_input_files(const std::filesystem::path& dir) {
  std::map<std::string, std::size_t> out;
  for (auto it = std::filesystem::recursive_directory_iterator(dir);
       it != std::filesystem::recursive_directory_iterator(); ++it) {
    const auto relative = std::filesystem::relative(it->path(), dir);
    if (it->is_directory()) {
      const std::string name = relative.filename().string();
      if (relative == "target" || relative == "logs" || (!name.empty() && name[0] == '.'))
        it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file() || !read_by_parse(relative)) continue;
    std::ifstream in(it->path(), std::ios::binary);
    const std::string content{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    out[relative.string()] = std::hash<std::string>{}(content);
  }
  return out;
}

std::vector<std::string> changed_parse_inputs(const std::map<std::string, std::size_t>& before,
                                              const std::map<std::string, std::size_t>& after) {
  std::vector<std::string> out;
  for (const auto& [path, digest] : before) {
    const auto it = after.find(path);
    if (it == after.end())
      out.push_back(path + " (removed)");
    else if (it->second != digest)
      out.push_back(path);
  }
  for (const auto& [path, digest] : after)
    if (!before.contains(path)) out.push_back(path + " (added)");
  return out;
}

std::string fast_path_outcome(const std::string& command_stderr) {
  // cli/src/shared/parse_reuse.cc's step lines.
  if (command_stderr.find("the kept parse stands, dbt not started") != std::string::npos) return "taken";
  const std::string declined = "not the parse's fast path: ";
  const auto at = command_stderr.find(declined);
  if (at == std::string::npos) return "";
  const auto from = at + declined.size();
  return command_stderr.substr(from, command_stderr.find('\n', from) - from);
}

}  // namespace ods::testing
