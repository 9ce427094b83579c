#include "cutoff_run.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <optional>

#include "commands.h"
#include "dbt_steps.h"
#include "evidence_gathering.h"
#include "flag_names.h"
#include "ods/base/elapsed.h"
#include "ods/dbt/cli/dbt_driver.h"
#include "ods/run/build_seconds.h"
#include "ods/run/build_selection.h"
#include "ods/run/cutoff_waves.h"
#include "ods/run/wave_plans.h"
#include "run_manifest.h"

namespace ods::cli {

namespace {

using Clock = std::chrono::steady_clock;

// What a failed wave leaves of the nodes held back behind it: as `dbt build`, ODS skips those
// below a failure and builds the others.
std::string failed_wave_line(int number, const WaveRecord& record) {
  const std::size_t skipped = record.skipped_below_failure.size();
  const std::size_t later = record.to_build_later.size();
  std::string line =
      "wave " + std::to_string(number) + " failed: of the " + std::to_string(skipped + later) + " nodes held back, ";
  if (later == 0) return line + "every one lies below a failed node or check and is skipped, as dbt build skips it";
  const bool one = skipped == 1;
  return line + std::to_string(skipped) + (one ? " lies" : " lie") + " below a failed node or check and " +
         (one ? "is" : "are") + " skipped, as dbt build skips " + (one ? "it" : "them") + "; the other " +
         std::to_string(later) + " are planned again and build, as dbt build builds them";
}

// One wave's `dbt build` arguments: its selection (the first wave's with the checks),
// --target-path, and dbt::kDriverNoManifest when the build is to write no manifest.
std::vector<std::string> wave_build_args(const LoadedProject& project, const planner::ExecutionPlan& plan,
                                         const WaveSettings& settings, bool first, bool writes_none) {
  std::vector<std::string> args{"build", kFlagSelect};
  for (auto& arg : run::build_selection(project.inputs, plan, first ? settings.checks : std::vector<std::string>{}))
    args.push_back(std::move(arg));
  args.insert(args.end(), settings.target_path.begin(), settings.target_path.end());
  if (writes_none) args.emplace_back(dbt::kDriverNoManifest);
  return args;
}

// After a build that wrote no manifest: the manifest the run read noted for the commands that
// read the project after it (run_manifest.h; the driver hands over what the build compiled, so
// before any other dbt call); a warning when it can't be.
void note_manifest_read(const CommandContext& ctx, DbtSession& dbt, const WaveSettings& settings,
                        const std::string& invocation_id) {
  if (auto noted = note_run_manifest(ctx, dbt, settings.manifest, invocation_id); !noted)
    *ctx.err << "ods: warning: " << noted.error().message
             << "; `ods state plan` and `ods state record` read target/manifest.json, which this run did not write\n";
}

}  // namespace

int build_in_waves(const CommandContext& ctx, DbtSession& dbt, const LoadedProject& project,
                   planner::PlanOptions options, RunContext& run, const WaveSettings& settings) {
  const bool measurable = settings.mode != run::CutoffMode::off && content_measurable(settings.adapter_type);
  const bool code_cutoff = measurable && content_covers_schema(settings.adapter_type);
  // The built relations' identities are read after each wave, in early cutoff's content call
  // when it makes one (docs/warehouses.md, "Relation identity").
  const bool identities = settings.warehouse.relation_identity && relation_identity_readable(settings.adapter_type);
  std::vector<std::string> building;
  for (const auto& e : run.plan.entries)
    if (e.action == planner::Action::build) building.push_back(e.id);
  const auto node_seconds = run::last_build_seconds(run.store, run.scope, building);
  // One more wave costs a dbt build call and a content probe call. Before the first wave: each
  // about what this run's probe call took (dbt's start and the project's parse, a few
  // statements); after it, what the last wave's build call cost besides its nodes, plus its
  // content call, as measured.
  double extra_call_seconds = 2 * run.evidence.call_seconds;

  start_inputs_digest(run);  // while dbt builds
  begin_metrics(run);
  planner::ExecutionPlan whole = run.plan;
  planner::ExecutionPlan current = run.plan;
  std::vector<WaveRecord> waves;
  dbt::DbtCommandResult last_build;
  std::optional<dbt::DbtCommandResult> failed_build;  // the first wave whose dbt build failed: the run's exit
  for (int number = 1;; ++number) {
    const run::Wave wave = run::next_wave(project.inputs, current, node_seconds, extra_call_seconds, settings.mode,
                                          measurable, code_cutoff);
    run.plan = run::only_building(current, wave.now);
    if (number > 1 || !wave.later.empty())
      step(ctx,
           "wave " + std::to_string(number) + ": building " + std::to_string(wave.now.size()) + " nodes; " + wave.why);
    const bool on_plans_parse = dbt.one_parse() && !run.compiled_by_build;
    const bool writes_none = on_plans_parse && !settings.write_manifest;
    auto t = Clock::now();
    auto built =
        dbt.run_with_progress(wave_build_args(project, run.plan, settings, number == 1, writes_none), "dbt build");
    if (!built) return report(ctx, built.error());
    run.timings.build += seconds_since(t);
    if (built->interrupted) {
      *ctx.err << "ods: interrupted: dbt stopped; nothing of this wave recorded"
               << (waves.empty() ? ", the state is as it was before this run\n" : ", the waves before it are\n");
      return kExitInterrupted;
    }
    if (writes_none) note_manifest_read(ctx, dbt, settings, built->invocation_id);  // before any other dbt call
    WaveEvidence evidence;
    evidence.built_for_code = run::built_for_code_ids(run.plan);
    evidence.one_parse = on_plans_parse;
    evidence.manifest_written = !writes_none;
    evidence.held_back = wave.later;
    evidence.earlier_wave_failed = failed_build.has_value();
    if (measurable || identities) {
      t = Clock::now();
      std::vector<std::string> warnings;
      auto read = read_built_relations(
          dbt, settings.adapter_type, settings.warehouse, ctx.target_dir.string(),
          measurable ? run::nodes_with_readers(project.inputs, wave.now) : std::vector<std::string>{}, identities,
          ctx.env.now(), warnings);
      evidence.node_contents = std::move(read.contents);
      evidence.node_identities = std::move(read.identities);
      for (const auto& w : warnings) *ctx.err << "ods: warning: " << w << "\n";
      const double content_seconds = seconds_since(t);
      run.timings.content += content_seconds;
      if (measurable)
        extra_call_seconds =
            run::measured_wave_seconds(built->seconds, built->node_seconds, content_seconds, extra_call_seconds);
    }
    WaveRecord record;
    if (int code = record_wave(ctx, run, *built, evidence, record); code != kExitOk) return code;
    const std::vector<std::string> later = record.to_build_later;
    if (record.failed_build && !wave.later.empty()) step(ctx, failed_wave_line(number, record));
    waves.push_back(std::move(record));
    last_build = std::move(*built);
    if (last_build.exit_code != 0 && !failed_build) failed_build = last_build;
    if (later.empty()) break;
    // Re-plan the held-back nodes against what this wave recorded.
    for (const auto& e : run.plan.entries)
      if (e.action == planner::Action::build) options.built_earlier[e.id] = planner::built_for_code(e);
    options.selected = later;
    auto replan = planner::plan(project.inputs, run.head ? &run.head->snapshot : nullptr, options);
    if (!replan) return report(ctx, replan.error());
    run::merge_replan(whole, *replan);
    const int cut = replan->count(planner::Action::reuse);
    step(ctx, "early cutoff: " + std::to_string(cut) + " of " + std::to_string(later.size()) +
                  " held-back nodes reused (the content they read is unchanged)");
    current = std::move(*replan);
    if (current.count(planner::Action::build) == 0) {  // all cut off: their time saved is this run's too
      const double cut_saved = run::time_saved_seconds(run.store, run.scope, current);
      waves.back().saved += cut_saved;
      record_cut_off_end(ctx, run, current, cut_saved, failed_build.has_value());  // counted in the scope's metrics
      break;
    }
  }
  run.plan = std::move(whole);
  return finish_run(ctx, run, waves, failed_build ? *failed_build : last_build);
}

}  // namespace ods::cli
