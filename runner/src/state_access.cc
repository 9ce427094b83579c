#include "state_access.h"

#include <fstream>
#include <regex>

#include "ods/planner/planner.h"

namespace ods::cli {

Result<std::string> project_name(const CommandContext& ctx) {
  auto path = ctx.project_dir / "dbt_project.yml";
  std::ifstream in(path);
  if (!in) return fail("usage", path.string() + ": not found; is --project-dir a dbt project?");
  static const std::regex kName(R"(^name:\s*['"]?([A-Za-z_][A-Za-z0-9_]*)['"]?\s*(#.*)?$)");
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_match(line, m, kName)) return m[1].str();
  }
  return fail("usage", path.string() + ": no top-level `name:`");
}

Result<std::string> scope_for(const CommandContext& ctx) {
  auto name = project_name(ctx);
  if (!name) return std::unexpected(name.error());
  return planner::scope_of(*name, ctx.target);
}

}  // namespace ods::cli
