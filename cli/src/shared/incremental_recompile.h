#pragma once
// After a dbt build, the incremental models it built whose relation did not exist when this run
// compiled them are compiled again, so the record holds the code the next run's compile renders
// (is_incremental() true), not the first-build form: ods/dbt/incremental_recompile.h. Used by
// `ods state run` (record_wave), once per wave. Not by `ods pod`: the controller records the
// inputs it planned with (it refuses results whose inputs differ), so the pod would need a
// protocol field for the code to record (docs/cli.md, "Known limits").
#include <map>
#include <optional>
#include <string>

#include "context.h"
#include "dbt_session.h"
#include "ods/dbt/artifacts.h"
#include "ods/dbt/incremental_recompile.h"

namespace ods::cli {

// `recorded`: the project being recorded (its DbtProject names the incremental models, its
// inputs the code recorded so far); `node_status`: the build's run_results; `relations_exist`:
// the probe's answer before the build (GatheredEvidence::relations_exist, relation_kinds). When
// some built incremental model's relation was not shown to exist (or existed as another kind
// than a table), one `dbt compile --select <them>`
// through `dbt`, its artifacts under <target-dir>/ods-recompile (the build's stay as they are),
// and a step line saying what it did. Returns the code to record for them
// (dbt::take_recompiled_code); empty when there were none. Never fails: a compile that fails or
// can't be read is a warning, and an empty answer records what the build's compile gave (the
// next run builds them once more). Adds the compile's seconds to `seconds`.
dbt::RecompiledCode recompile_first_incremental_builds(
    const CommandContext& ctx, DbtSession& dbt, const dbt::DbtProject& recorded_project,
    const planner::ProjectInputs& recorded, const std::map<std::string, std::string>& node_status,
    const std::optional<std::map<std::string, bool>>& relations_exist,
    const std::map<std::string, std::string>& relation_kinds, double& seconds);

}  // namespace ods::cli
