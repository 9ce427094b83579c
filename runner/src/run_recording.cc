#include "run_recording.h"

#include <iostream>
#include <nlohmann/json.hpp>
#include <random>

#include "command_summary.h"
#include "commands.h"
#include "commit_retry.h"
#include "ods/base/sha256.h"
#include "ods/planner/json_io.h"
#include "ods/planner/planner.h"
#include "plan_markdown.h"
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

// The names of the plan's nodes dbt did not build, with dbt's status ("orders (error)").
std::vector<std::string> failed_nodes(const planner::ExecutionPlan& plan, const planner::RunOutcome& outcome) {
  std::vector<std::string> out;
  for (const auto& e : plan.entries) {
    auto it = outcome.node_status.find(e.id);
    if (it != outcome.node_status.end() && it->second != "success" && it->second != "skipped")
      out.push_back(e.name + " (" + it->second + ")");
  }
  return out;
}

// The line in a terminal; the JSON document and the Markdown as the flags ask. False when a
// --summary or --json-file could not be written.
bool print_summary(const CommandContext& ctx, const RunContext& run, const json& counts, const std::string& run_id,
                   const std::string& outcome, double saved, const std::vector<std::string>& failed = {},
                   const std::string& dbt_errors = "") {
  if (ctx.format == "text") {
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
  if (!report_wanted(ctx)) return true;
  CommandSummary summary = planned_summary(ctx, run.plan, "run", false, saved);
  summary.built = counts.value("built", 0);
  summary.failed = counts.value("failed", 0);
  summary.skipped = counts.value("skipped", 0);
  summary.outcome = outcome;
  auto document = [&] {
    json doc{{"plan", json::parse(planner::to_json(run.plan, false))},
             {"run",
              {{"run_id", run_id},
               {"outcome", outcome},
               {"counts", counts},
               {"timings", timings_of(run)},
               {"probe_seconds", run.evidence.probe_seconds},
               {"time_saved_seconds", saved}}},
             {"summary", to_json(summary)}};
    return doc.dump(2);
  };
  return deliver_report(ctx, document, [&] {
    MarkdownInput in = markdown_input(run.plan, summary);
    in.failed_nodes = failed;
    in.dbt_errors = dbt_errors;
    return in;
  });
}

}  // namespace

int finish_without_build(const CommandContext& ctx, RunContext& run) {
  const std::string run_id = random_run_id();
  const double saved = time_saved_seconds(run.store, run.scope, run.plan);
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
                              details_of(run, counts, json::object(), saved).dump(),
                              std::nullopt};
  append_ledger_entry(ctx, run.store, ledger);
  return print_summary(ctx, run, counts, run_id, "reused", saved) ? kExitOk : kExitFailed;
}

int finish_dry_run(const CommandContext& ctx, const planner::ExecutionPlan& plan, contracts::StateStore* store) {
  if (!report_wanted(ctx)) return kExitOk;
  const double saved = store == nullptr ? 0 : time_saved_seconds(*store, plan.scope, plan);
  const CommandSummary summary = planned_summary(ctx, plan, "run", true, saved);
  auto document = [&] {
    return json{{"plan", json::parse(planner::to_json(plan, false))}, {"run", nullptr}, {"summary", to_json(summary)}}
        .dump(2);
  };
  return deliver_report(ctx, document, [&] { return markdown_input(plan, summary); }) ? kExitOk : kExitFailed;
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
  const double saved = time_saved_seconds(run.store, run.scope, run.plan);
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
                              ods::sha256_hex(planner::to_json(project->inputs)),
                              planner::to_json(run.plan, false),
                              details_of(run, counts, node_seconds, saved).dump(),
                              committed->stored.id};
  append_ledger_entry(ctx, run.store, ledger);
  const bool delivered = print_summary(ctx, run, counts, loaded->outcome.run_id, outcome, saved,
                                       failed_nodes(run.plan, loaded->outcome), build.error_text);
  const int code = finish_after_dbt(
      ctx, build, "dbt build failed; the nodes that failed or were skipped keep their last state and build next time");
  return delivered ? code : kExitFailed;
}

}  // namespace ods::cli
