#include "run_recording.h"

#include <iostream>
#include <nlohmann/json.hpp>
#include <random>

#include "commands.h"
#include "commit_retry.h"
#include "ods/planner/json_io.h"
#include "ods/planner/planner.h"
#include "ods/state/build_seconds.h"
#include "project_loader.h"
#include "recording_steps.h"

namespace ods::cli {

using nlohmann::json;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

std::string random_run_id() {
  std::random_device rd;
  std::uniform_int_distribution<std::uint64_t> dist;
  char buf[40];
  std::snprintf(buf, sizeof buf, "ods-%016llx", static_cast<unsigned long long>(dist(rd)));
  return buf;
}

// The last known build time of each reused node, from the ledger: what this run saved.
double time_saved(const RunContext& run) {
  std::vector<std::string> reused;
  for (const auto& e : run.plan.entries)
    if (e.action == planner::Action::reuse) reused.push_back(e.id);
  return state::last_build_seconds(run.store, run.scope, reused);
}

// Seconds per step and in all, so far.
json timings_of(const RunContext& run) {
  return {{"compile", run.timings.compile},
          {"probe", run.timings.probe},
          {"build", run.timings.build},
          {"total", seconds_since(run.started)}};
}

json details_of(const RunContext& run, const json& counts, const json& node_seconds, double saved) {
  return {{"summary", counts.value("summary", "")},
          {"counts", counts},
          {"timings", timings_of(run)},
          {"probe",
           {{"strategy", run.evidence.strategy},
            {"call_seconds", run.evidence.call_seconds},
            {"source_seconds", run.evidence.probe_seconds},
            {"warnings", run.evidence.warnings}}},
          {"node_seconds", node_seconds},
          {"time_saved_seconds", saved},
          {"recorded_by", "ods state run"}};
}

void print_summary(const CommandContext& ctx, const RunContext& run, const json& counts, const std::string& run_id,
                   const std::string& outcome) {
  double saved = time_saved(run);
  if (ctx.format == "json") {
    json doc{{"plan", json::parse(planner::to_json(run.plan, false))},
             {"run",
              {{"run_id", run_id},
               {"outcome", outcome},
               {"counts", counts},
               {"timings", timings_of(run)},
               {"probe_seconds", run.evidence.probe_seconds},
               {"time_saved_seconds", saved}}}};
    *ctx.out << doc.dump(2) << "\n";
    return;
  }
  char line[256];
  std::snprintf(line, sizeof line, "ods: %s: built %d, reused %d, failed %d, skipped %d in %.1f s", outcome.c_str(),
                counts.value("built", 0), counts.value("reused", 0), counts.value("failed", 0),
                counts.value("skipped", 0), seconds_since(run.started));
  *ctx.out << line;
  if (saved > 0) {
    std::snprintf(line, sizeof line, "; about %.1f s of dbt work saved (the reused nodes' last build times)", saved);
    *ctx.out << line;
  }
  *ctx.out << "\n";
}

}  // namespace

int finish_without_build(const CommandContext& ctx, RunContext& run) {
  const std::string run_id = random_run_id();
  json counts{{"built", 0},
              {"reused", run.plan.count(planner::Action::reuse)},
              {"failed", 0},
              {"skipped", 0},
              {"summary", "everything reused"}};
  contracts::RunRecord ledger{run_id,
                              run.scope,
                              ctx.env.now(),
                              ctx.env.now(),
                              "reused",
                              "",
                              planner::to_json(run.plan, false),
                              details_of(run, counts, json::object(), time_saved(run)).dump(),
                              std::nullopt};
  append_ledger_entry(ctx, run.store, ledger);
  print_summary(ctx, run, counts, run_id, "reused");
  return kExitOk;
}

int record_build(const CommandContext& ctx, RunContext& run, const dbt::DbtCommandResult& build) {
  auto project = load_project(ctx);
  if (!project) return report(ctx, project.error());
  auto loaded = load_run(ctx, *project);
  if (!loaded) return report_nothing_recorded(ctx, build, "dbt build failed before running any node", loaded.error());
  loaded->outcome.source_versions = run.source_versions;  // measured by the probe, before the build started
  auto committed = commit_outcome(run.store, run.scope, project->inputs, run.head, loaded->outcome, *ctx.err);
  if (!committed) {
    return report(ctx, {committed.error().code, "the build ran but was not recorded: " + committed.error().message +
                                                    "; the next run plans against the newer state"});
  }
  int built = 0, failed = 0, skipped = 0;
  json node_seconds = json::object();
  for (const auto& [id, status] : loaded->outcome.node_status) {
    if (status == "success")
      ++built;
    else if (status == "skipped")
      ++skipped;
    else
      ++failed;
  }
  for (const auto& [id, secs] : loaded->node_seconds) node_seconds[id] = secs;
  const std::string outcome = build.exit_code == 0 ? "success" : (built > 0 ? "partial" : "failed");
  json counts{{"built", built},
              {"reused", run.plan.count(planner::Action::reuse)},
              {"failed", failed},
              {"skipped", skipped},
              {"summary", loaded->summary}};
  contracts::RunRecord ledger{loaded->outcome.run_id,
                              run.scope,
                              loaded->outcome.started_at,
                              loaded->finished_at,
                              outcome,
                              planner::sha256_hex(planner::to_json(project->inputs)),
                              planner::to_json(run.plan, false),
                              details_of(run, counts, node_seconds, time_saved(run)).dump(),
                              committed->stored.id};
  append_ledger_entry(ctx, run.store, ledger);
  print_summary(ctx, run, counts, loaded->outcome.run_id, outcome);
  return finish_after_dbt(
      ctx, build, "dbt build failed; the nodes that failed or were skipped keep their last state and build next time");
}

}  // namespace ods::cli
