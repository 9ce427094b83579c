#include "state_access.h"

#include "ods/dbt/project_file.h"
#include "ods/planner/planner.h"

namespace ods::cli {

Result<std::string> project_name(const CommandContext& ctx) {
  auto file = dbt::read_project_file(ctx.project_dir);
  if (!file) return std::unexpected(file.error());
  return file->name;
}

Result<std::string> scope_for(const CommandContext& ctx) {
  auto name = project_name(ctx);
  if (!name) return std::unexpected(name.error());
  return planner::scope_of(*name, ctx.target);
}

}  // namespace ods::cli
