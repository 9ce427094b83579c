#include "cutoff_run.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <set>
#include <unordered_map>

#include "commands.h"
#include "dbt_steps.h"
#include "evidence_gathering.h"
#include "ods/run/build_seconds.h"
#include "ods/run/build_selection.h"

namespace ods::cli {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// `plan` with only the entries of `ids` among its BUILD entries (its reuses kept).
planner::ExecutionPlan only_building(const planner::ExecutionPlan& plan, const std::vector<std::string>& ids) {
  const std::set<std::string> keep(ids.begin(), ids.end());
  planner::ExecutionPlan out = plan;
  std::erase_if(out.entries, [&](const planner::PlanEntry& e) {
    return e.action == planner::Action::build && !keep.contains(e.id);
  });
  out.select.clear();
  for (const auto& e : out.entries)
    if (e.action == planner::Action::build) out.select += (out.select.empty() ? "" : " ") + e.name;
  return out;
}

// The built nodes whose content a reader could cut off on: those with a reader in the project.
std::vector<std::string> with_readers(const planner::ProjectInputs& inputs, const std::vector<std::string>& built) {
  std::set<std::string> parents;
  for (const auto& n : inputs.nodes) parents.insert(n.parents.begin(), n.parents.end());
  std::vector<std::string> out;
  for (const auto& id : built)
    if (parents.contains(id)) out.push_back(id);
  return out;
}

// `whole` with the entries `replan` has for the same ids; its selection recomputed.
void merge_replan(planner::ExecutionPlan& whole, const planner::ExecutionPlan& replan) {
  std::unordered_map<std::string, const planner::PlanEntry*> by_id;
  for (const auto& e : replan.entries) by_id.emplace(e.id, &e);
  whole.select.clear();
  for (auto& e : whole.entries) {
    if (auto it = by_id.find(e.id); it != by_id.end()) e = *it->second;
    if (e.action == planner::Action::build) whole.select += (whole.select.empty() ? "" : " ") + e.name;
  }
  for (const auto& w : replan.warnings)
    if (std::find(whole.warnings.begin(), whole.warnings.end(), w) == whole.warnings.end()) whole.warnings.push_back(w);
}

}  // namespace

int build_in_waves(const CommandContext& ctx, DbtSession& dbt, const LoadedProject& project,
                   planner::PlanOptions options, RunContext& run, const WaveSettings& settings) {
  const bool measurable = settings.mode != run::CutoffMode::off && content_measurable(settings.adapter_type);
  std::vector<std::string> building;
  for (const auto& e : run.plan.entries)
    if (e.action == planner::Action::build) building.push_back(e.id);
  const auto node_seconds = run::last_build_seconds(run.store, run.scope, building);
  // One more wave costs a dbt build call and a content probe call: each about what this run's
  // probe call took (dbt's start and the project's parse, a few statements).
  const double extra_call_seconds = 2 * run.evidence.call_seconds;

  planner::ExecutionPlan whole = run.plan;
  planner::ExecutionPlan current = run.plan;
  std::vector<WaveRecord> waves;
  dbt::DbtCommandResult last_build;
  for (int number = 1;; ++number) {
    const run::Wave wave =
        run::next_wave(project.inputs, current, node_seconds, extra_call_seconds, settings.mode, measurable);
    run.plan = only_building(current, wave.now);
    if (number > 1 || !wave.later.empty())
      step(ctx,
           "wave " + std::to_string(number) + ": building " + std::to_string(wave.now.size()) + " nodes; " + wave.why);
    std::vector<std::string> args{"build", "--select"};
    for (auto& arg : run::build_selection(run.plan, number == 1 ? settings.source_checks : std::vector<std::string>{}))
      args.push_back(std::move(arg));
    args.insert(args.end(), settings.target_path.begin(), settings.target_path.end());
    auto t = Clock::now();
    auto built = dbt.run_with_progress(args, "dbt build");
    if (!built) return report(ctx, built.error());
    run.timings.build += seconds_since(t);
    if (built->interrupted) {
      *ctx.err << "ods: interrupted: dbt stopped; nothing of this wave recorded"
               << (waves.empty() ? ", the state is as it was before this run\n" : ", the waves before it are\n");
      return 130;
    }
    WaveEvidence evidence;
    for (const auto& e : run.plan.entries)
      if (planner::built_for_code(e)) evidence.built_for_code.push_back(e.id);
    if (measurable) {
      t = Clock::now();
      std::vector<std::string> warnings;
      evidence.node_contents = measure_contents(dbt, settings.adapter_type, ctx.target_dir.string(),
                                                with_readers(project.inputs, wave.now), ctx.env.now(), warnings);
      for (const auto& w : warnings) *ctx.err << "ods: warning: " << w << "\n";
      run.timings.probe += seconds_since(t);
    }
    WaveRecord record;
    if (int code = record_wave(ctx, run, *built, evidence, record); code != kExitOk) return code;
    waves.push_back(std::move(record));
    last_build = std::move(*built);
    if (wave.later.empty() || last_build.exit_code != 0) {
      if (!wave.later.empty())
        step(ctx, "wave " + std::to_string(number) + " failed: the " + std::to_string(wave.later.size()) +
                      " nodes held back are not built; they build next time");
      break;
    }
    // Re-plan the held-back nodes against what this wave recorded.
    for (const auto& e : run.plan.entries)
      if (e.action == planner::Action::build) options.built_earlier[e.id] = planner::built_for_code(e);
    options.selected = wave.later;
    auto replan = planner::plan(project.inputs, run.head ? &run.head->snapshot : nullptr, options);
    if (!replan) return report(ctx, replan.error());
    merge_replan(whole, *replan);
    const int cut = replan->count(planner::Action::reuse);
    step(ctx, "early cutoff: " + std::to_string(cut) + " of " + std::to_string(wave.later.size()) +
                  " held-back nodes reused (the content they read is unchanged)");
    current = std::move(*replan);
    if (current.count(planner::Action::build) == 0) {  // all cut off: their time saved is this run's too
      waves.back().saved += run::time_saved_seconds(run.store, run.scope, current);
      break;
    }
  }
  run.plan = std::move(whole);
  return finish_run(ctx, run, waves, last_build);
}

}  // namespace ods::cli
