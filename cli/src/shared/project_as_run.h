#pragma once
// What a dbt command's results are recorded against (issue #13; ADR-0032): the project that
// was planned, unless dbt may have built or tested other code. `ods state run` and
// `ods state test` keep the project they planned and record against it. With the ods dbt
// driver every dbt command of the session runs on the first command's parse, so that is
// exact. With a dbt process per command each command parsed the project again from the files
// as they were when it started: a model edited between the plan and dbt build (and reverted
// after) would be recorded with code dbt never built, and reused wrongly next time (rule 2).
// Then the manifest the command wrote is read again and recorded: what dbt built or tested.
#include <optional>

#include "context.h"
#include "ods/dbt/artifacts.h"
#include "project_loader.h"

namespace ods::cli {

struct ProjectAsRun {
  dbt::ManifestMeta written;            // the metadata of the manifest the command wrote
  std::optional<LoadedProject> as_run;  // that manifest's project, when the command parsed it itself

  bool reread() const { return as_run.has_value(); }
  // The project to record against: the re-read one, else `planned`.
  const LoadedProject& of(const LoadedProject& planned) const { return as_run ? *as_run : planned; }
  // load_run's `written_by` for of(planned): null for the re-read project (its own manifest).
  const dbt::ManifestMeta* written_by() const { return as_run ? nullptr : &written; }
};

// After a dbt command that wrote <target-dir>/manifest.json: `one_parse` is
// DbtSession::one_parse(). Reads only that manifest's metadata when one_parse; otherwise the
// whole manifest (load_project). With one_parse and a non-empty `invocation_id` (the command's
// own, when it wrote no manifest: dbt::kDriverNoManifest) reads nothing: `written` carries only
// that id. Errors: the manifest's (load_project's codes); nothing is recorded then.
[[nodiscard]] Result<ProjectAsRun> project_as_run(const CommandContext& ctx, bool one_parse,
                                                  const std::string& invocation_id = "");

}  // namespace ods::cli
