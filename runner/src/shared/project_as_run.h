#pragma once
// What a dbt command's results are recorded against (issue #13; ADR-0032): the project that
// was planned, unless dbt may have built or tested other code. `ods state run` and
// `ods state test` keep the project they planned and record against it. With the ods dbt
// driver every dbt command of the session runs on the first command's parse, so that is
// exact. With a dbt process per command each command parsed the project again from the files
// as they were when it started: a model edited between the plan and dbt build (and reverted
// after) would be recorded with code dbt never built, and reused wrongly next time (rule 2).
// Then the manifest the command wrote is read again and compared with the plan.
#include <optional>
#include <string>
#include <vector>

#include "context.h"
#include "ods/dbt/artifacts.h"
#include "ods/planner/inputs.h"
#include "project_loader.h"

namespace ods::cli {

struct ProjectAsRun {
  dbt::ManifestMeta written;            // the metadata of the manifest the command wrote
  bool reread = false;                  // the manifest was read again (a dbt process per command)
  std::optional<LoadedProject> as_run;  // that manifest's project, when its code differs from the plan's
  std::vector<std::string> changed;     // the nodes and sources whose code differs (names, sorted)

  // The project to record against: the re-read one when its code differs, else `planned`.
  const LoadedProject& of(const LoadedProject& planned) const { return as_run ? *as_run : planned; }
  // load_run's `written_by` for of(planned): null for the re-read project (its own manifest).
  const dbt::ManifestMeta* written_by() const { return as_run ? nullptr : &written; }
};

// After a dbt command that wrote <target-dir>/manifest.json: `one_parse` is
// DbtSession::one_parse(). Reads only that manifest's metadata when one_parse; otherwise the
// whole manifest, compared with `planned` (code_differences). Errors: the manifest's
// (load_project's codes); nothing is recorded then.
[[nodiscard]] Result<ProjectAsRun> project_as_run(const CommandContext& ctx, const LoadedProject& planned,
                                                  bool one_parse);

// The names of the nodes and sources whose recorded code evidence differs between `planned`
// and `built` (fingerprint, parents, incomplete or always-build reasons, checks, relation;
// present in one only), sorted. Data versions are not compared: they are evidence, not code.
std::vector<std::string> code_differences(const planner::ProjectInputs& planned, const planner::ProjectInputs& built);

// "a, b, c and 4 more" (at most `shown` names).
std::string name_list(const std::vector<std::string>& names, std::size_t shown = 5);

}  // namespace ods::cli
