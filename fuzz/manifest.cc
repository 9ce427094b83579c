// Fuzz target: manifest.json through read_dbt_project (providers/dbt: the streaming reader,
// the two entry workers, project assembly). A refusal has a documented code and names the file;
// an accepted project is one the planner's inputs document round-trips.
#include "fuzz_support.h"
#include "ods/dbt/artifacts.h"
#include "ods/planner/json_io.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const ods::fuzz::ScratchFile manifest("manifest.json");
  const ods::dbt::ArtifactPaths paths{.manifest = manifest.write(ods::fuzz::as_text(data, size)), .sources = {}};
  const auto project = ods::dbt::read_dbt_project(paths, {});
  if (!project) {
    ods::fuzz::require_documented_error(
        project.error(), {"missing_artifact", "unsupported_schema", "invalid_artifact", "no_project_name"},
        "manifest.json");
    return 0;
  }
  const std::string text = ods::planner::to_json(project->inputs);
  const auto again = ods::planner::inputs_from_json(text);
  ods::fuzz::require(again.has_value(), "the inputs of an accepted manifest do not read back",
                     again ? "" : again.error().message);
  ods::fuzz::require(ods::planner::to_json(*again) == text,
                     "the inputs of an accepted manifest change on reading back");
  return 0;
}
