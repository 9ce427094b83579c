#pragma once
// `ods state run`'s build in waves (early cutoff, docs/early-cutoff.md): build a wave, read
// the content of what it built, record it, re-plan the nodes held back against that record,
// build what still must build. run/cutoff_waves.h draws the boundaries.
#include <filesystem>
#include <string>
#include <vector>

#include "context.h"
#include "dbt_session.h"
#include "evidence_gathering.h"
#include "ods/planner/planner.h"
#include "ods/run/cutoff_waves.h"
#include "project_loader.h"
#include "run_recording.h"

namespace ods::cli {

struct WaveSettings {
  run::CutoffMode mode = run::CutoffMode::automatic;
  std::vector<std::string> target_path;  // --target-path, for every dbt call
  std::vector<std::string> checks;       // the first wave's checks (run::check_selection)
  std::string adapter_type;
  WarehouseOptions warehouse;  // the content statements' options (measure_contents)
  // --write-manifest: each dbt build writes target/manifest.json as dbt does. Otherwise a build
  // on the plan's parse (WaveEvidence::one_parse) writes none (dbt::kDriverNoManifest): the
  // record needs only its run_results.json and invocation id.
  bool write_manifest = false;
  // The manifest the plan was read from (PreparedRun::manifest): after a build that wrote none,
  // the run notes it for the commands that read the project after the run (run_manifest.h).
  std::filesystem::path manifest;
};

// Builds `run.plan`'s BUILD set in waves and records each; `options` are the plan's (a later
// wave's re-plan keeps them, selecting only the nodes held back). On return run.plan is the
// whole run's plan: the first plan, with the held-back nodes' entries as re-planned.
// Returns the command's exit code (kExitInterrupted, 130, when dbt was interrupted; waves before stay recorded).
int build_in_waves(const CommandContext& ctx, DbtSession& dbt, const LoadedProject& project,
                   planner::PlanOptions options, RunContext& run, const WaveSettings& settings);

}  // namespace ods::cli
