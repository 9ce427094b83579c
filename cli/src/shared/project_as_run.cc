#include "project_as_run.h"

namespace ods::cli {

Result<ProjectAsRun> project_as_run(const CommandContext& ctx, bool one_parse, const std::string& invocation_id) {
  ProjectAsRun out;
  if (one_parse && !invocation_id.empty()) {
    out.written.invocation_id = invocation_id;
    return out;
  }
  if (one_parse) {
    auto written = dbt::read_manifest_metadata(ctx.target_dir / "manifest.json");
    if (!written) return std::unexpected(written.error());
    out.written = std::move(*written);
    return out;
  }
  auto built = load_project(ctx);
  if (!built) return std::unexpected(built.error());
  out.written = built->dbt_project->meta;
  out.as_run = std::move(*built);
  return out;
}

}  // namespace ods::cli
