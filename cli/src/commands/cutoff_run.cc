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
#include "ods/run/evidence_cost.h"
#include "ods/run/wave_plans.h"
#include "ods/run/wave_record.h"
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

// Early cutoff's content measurement bounded by what it could spare (run/evidence_cost.h): the
// recorded costs, and every node's build time the verdicts read.
struct MeasurementBudget {
  bool bounded = false;  // --cutoff auto with $ODS_EVIDENCE_COST on
  run::RecordedEvidenceCosts recorded;
  std::map<std::string, double> node_seconds;
};

MeasurementBudget measurement_budget(RunContext& run, const run::Downstream& downstream,
                                     const std::vector<std::string>& building, bool bounded) {
  MeasurementBudget out;
  out.bounded = bounded;
  if (!bounded) return out;
  out.recorded = run::last_evidence_costs(run.store, run.scope);
  std::vector<std::string> priced;  // built nodes whose content was measured before: a verdict to give
  for (const auto& id : building)
    if (out.recorded.seconds.contains(id)) priced.push_back(id);
  if (!priced.empty()) out.node_seconds = run::last_build_seconds(run.store, run.scope, downstream.nodes_below(priced));
  return out;
}

// The content not measured after a wave, said on the plan entries (the run's and the wave's) and
// kept for the ledger, so the next run's verdict knows it was skipped (the hysteresis).
// Returns how many of `built` it noted.
std::size_t note_unmeasured(const std::map<std::string, std::string>& unmeasured, const std::vector<std::string>& built,
                            planner::ExecutionPlan& wave_plan, planner::ExecutionPlan& whole, RunContext& run) {
  std::size_t noted = 0;
  for (const auto& id : built) {
    auto why = unmeasured.find(id);
    if (why == unmeasured.end()) continue;
    ++noted;
    run.exact_evidence_skipped.push_back(id);
    for (planner::ExecutionPlan* plan : {&wave_plan, &whole})
      for (auto& e : plan->entries)
        if (e.id == id)
          e.evidence.push_back({"content_unmeasured", id, why->second + "; its readers won't cut off on it",
                                planner::Exactness::none, "evidence cost"});
  }
  return noted;
}

// The content to measure after the wave `current` builds: of its built nodes with readers, those
// whose last measurement cost less than building what lies below them (`unread`: the others,
// with why). Unbounded (budget.bounded false): nothing is left unread.
run::ExactChoice choose_measured(const LoadedProject& project, const planner::ExecutionPlan& current,
                                 const run::Downstream& downstream, const MeasurementBudget& budget) {
  if (!budget.bounded) return {};
  const auto with_readers = run::nodes_with_readers(project.inputs, run::building_ids(current));
  return run::choose_exact(downstream, with_readers, budget.recorded, budget.node_seconds, "measuring its content");
}

// What is read after a wave's build: its built nodes' content (measurable) and their relations'
// identities (identities).
struct AfterWaveReads {
  bool measurable = false;
  bool identities = false;
};

// After a wave's build, in one call: the content of the nodes of `built` that have readers, but
// those `measuring` left unread (said on the plans: note_unmeasured, and in a step line), and the
// built relations' identities; both into `evidence`, the seconds each content took into the run
// (the next run's verdicts). Warnings go to ctx.err. Returns the call's seconds (run.timings.content).
double read_after_wave(const CommandContext& ctx, DbtSession& dbt, const LoadedProject& project,
                       const WaveSettings& settings, AfterWaveReads reads, const std::vector<std::string>& built,
                       const run::ExactChoice& measuring, planner::ExecutionPlan& whole, RunContext& run,
                       WaveEvidence& evidence) {
  std::vector<std::string> to_measure;
  if (reads.measurable)
    for (auto& id : run::nodes_with_readers(project.inputs, built))
      if (!measuring.unread.contains(id)) to_measure.push_back(std::move(id));
  if (const std::size_t skipped = note_unmeasured(measuring.unread, built, run.plan, whole, run); skipped > 0)
    step(ctx, "early cutoff: the content of " + std::to_string(skipped) +
                  " built node(s) is not measured: measuring it took longer, when last measured, than building "
                  "everything below it (the plan's content_unmeasured evidence; ODS_EVIDENCE_COST=off measures it)");
  const auto t = Clock::now();
  std::vector<std::string> warnings;
  auto read = read_built_relations(dbt, settings.adapter_type, settings.warehouse, ctx.target_dir.string(), to_measure,
                                   reads.identities, ctx.env.now(), warnings);
  for (const auto& [id, seconds] : read.content_seconds) run.exact_evidence_seconds[id] = seconds;
  evidence.node_contents = std::move(read.contents);
  evidence.node_identities = std::move(read.identities);
  for (const auto& w : warnings) *ctx.err << "ods: warning: " << w << "\n";
  const double content_seconds = seconds_since(t);
  run.timings.content += content_seconds;
  return content_seconds;
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
  const std::vector<std::string> building = run::building_ids(run.plan);
  const auto node_seconds = run::last_build_seconds(run.store, run.scope, building);
  const run::Downstream downstream(project.inputs);
  const MeasurementBudget budget =
      measurement_budget(run, downstream, building,
                         measurable && settings.mode == run::CutoffMode::automatic && settings.warehouse.evidence_cost);
  // One more wave costs a dbt build call and a content probe call. Before the first wave: each
  // about what this run's dbt show probe call took (dbt's start and the project's parse, a few
  // statements); with the native probe, which starts no dbt, the build call is this run's parse
  // and compile instead, and the content call the probe's; after it, what the last wave's build
  // call cost besides its nodes, plus its content call, as measured.
  double extra_call_seconds = run.evidence.probe_via == kProbeNative ? run.timings.compile + run.evidence.call_seconds
                                                                     : 2 * run.evidence.call_seconds;

  start_inputs_digest(run);  // while dbt builds
  begin_metrics(run);
  planner::ExecutionPlan whole = run.plan;
  planner::ExecutionPlan current = run.plan;
  std::vector<WaveRecord> waves;
  dbt::DbtCommandResult last_build;
  std::optional<dbt::DbtCommandResult> failed_build;  // the first wave whose dbt build failed: the run's exit
  for (int number = 1;; ++number) {
    // The content measured after this wave: of the built nodes with readers, those whose last
    // measurement cost less than building what lies below them.
    const run::ExactChoice measuring = choose_measured(project, current, downstream, budget);
    const run::Wave wave = run::next_wave(project.inputs, current, node_seconds, extra_call_seconds, settings.mode,
                                          measurable, code_cutoff, measuring.unread);
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
    evidence.one_parse = on_plans_parse;
    evidence.manifest_written = !writes_none;
    evidence.held_back = wave.later;
    evidence.earlier_wave_failed = failed_build.has_value();
    if (measurable || identities) {
      const double content_seconds = read_after_wave(ctx, dbt, project, settings, {measurable, identities}, wave.now,
                                                     measuring, whole, run, evidence);
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
    auto replan = run::replan_held_back(project.inputs, run.head ? &run.head->snapshot : nullptr, run.plan, later,
                                        options, whole);
    if (!replan) return report(ctx, replan.error());
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
