#include "ods/dbt/cli/dbt_binary.h"

#include <unistd.h>

#include <vector>

namespace ods::dbt {
namespace {

namespace fs = std::filesystem;

enum class Found { missing, not_executable, executable };

Found check(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return Found::missing;
  if (!fs::is_regular_file(path, ec) || ::access(path.c_str(), X_OK) != 0) return Found::not_executable;
  return Found::executable;
}

std::vector<std::string> path_directories(const std::string& path_variable) {
  std::vector<std::string> dirs;
  std::size_t start = 0;
  for (;;) {
    const std::size_t colon = path_variable.find(':', start);
    std::string dir = path_variable.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    dirs.push_back(dir.empty() ? "." : dir);  // an empty entry means the current directory
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return dirs;
}

constexpr const char* kHint = " Install dbt, or choose one with --dbt PATH or ODS_DBT.";

}  // namespace

Result<fs::path> resolve_dbt_binary(const std::string& explicit_path, const GetEnv& getenv) {
  std::string choice = explicit_path;
  std::string origin = "--dbt";
  if (choice.empty()) {
    choice = getenv("ODS_DBT");
    origin = "ODS_DBT";
  }
  if (choice.empty()) {
    choice = "dbt";
    origin = "the default";
  }
  const std::string described = origin == "the default" ? "'dbt'" : origin + " '" + choice + "'";

  if (choice.find('/') != std::string::npos) {
    std::error_code ec;
    fs::path path = fs::absolute(choice, ec);
    if (ec) path = choice;
    switch (check(path)) {
      case Found::executable:
        return path.lexically_normal();
      case Found::not_executable:
        return fail("permission_denied",
                    "dbt cannot be run: " + described + " (" + path.string() + ") is not an executable file.");
      case Found::missing:
        return fail("dbt_not_found",
                    "dbt not found: " + described + " (" + path.string() + ") does not exist." + kHint);
    }
  }

  const std::string path_variable = getenv("PATH");
  std::vector<std::string> tried;
  bool saw_unexecutable = false;
  if (!path_variable.empty()) {
    for (const std::string& dir : path_directories(path_variable)) {
      std::error_code ec;
      fs::path candidate = fs::absolute(fs::path(dir) / choice, ec);
      if (ec) continue;
      tried.push_back(dir);
      switch (check(candidate)) {
        case Found::executable:
          return candidate.lexically_normal();
        case Found::not_executable:
          saw_unexecutable = true;
          break;
        case Found::missing:
          break;
      }
    }
  }
  std::string where = tried.empty() ? "PATH is empty" : "searched PATH: ";
  for (std::size_t i = 0; i < tried.size(); ++i) where += (i ? ", " : "") + tried[i];
  return fail("dbt_not_found", "dbt not found: no executable " + described + " on PATH (" + where + ")" +
                                   (saw_unexecutable ? "; a file of that name exists but is not executable" : "") +
                                   "." + kHint);
}

}  // namespace ods::dbt
