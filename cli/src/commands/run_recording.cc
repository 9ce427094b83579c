#include "run_recording.h"

#include <sys/resource.h>

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>

#include "command_summary.h"
#include "commands.h"
#include "commit_retry.h"
#include "dbt_steps.h"
#include "incremental_recompile.h"
#include "keyed_compile.h"
#include "ods/base/elapsed.h"
#include "ods/dbt/artifacts.h"
#include "ods/planner/json_io.h"
#include "ods/planner/planner.h"
#include "ods/run/build_seconds.h"
#include "ods/run/node_counts.h"
#include "ods/run/run_details.h"
#include "ods/run/wave_record.h"
#include "plan_markdown.h"
#include "project_as_run.h"
#include "project_loader.h"
#include "recording_steps.h"

namespace ods::cli {

using nlohmann::json;

namespace {

using Clock = std::chrono::steady_clock;

std::string random_run_id() {
  std::random_device rd;
  std::uniform_int_distribution<std::uint64_t> dist;
  char buf[40];
  std::snprintf(buf, sizeof buf, "ods-%016llx", static_cast<unsigned long long>(dist(rd)));
  return buf;
}

// The ods process's own peak resident memory so far, in MB (dbt's processes not counted).
double peak_rss_mb() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // kilobytes on Linux
}

// {"taken": true} when the parse's fast path stood for dbt parse, {"taken": false, "reason": why}
// when it was considered and declined, null when not considered.
json parse_fast_path_json(const std::string& outcome) {
  if (outcome.empty()) return nullptr;
  if (outcome == "taken") return json{{"taken", true}};
  return json{{"taken", false}, {"reason", outcome}};
}

// Seconds per phase and in all, so far (RunTimings); "ods" is ODS's own phases together.
std::map<std::string, double> timings_of(const RunContext& run) {
  const RunTimings& t = run.timings;
  const double probe_parse = std::max(0.0, t.probe - run.evidence.call_seconds);
  return {{"compile", t.compile},
          {"load", t.load},
          {"probe", t.probe},
          // The probe call's own seconds, under the probe that answered (evidence_gathering.h).
          {"probe_dbt", run.evidence.probe_via == kProbeNative ? 0.0 : run.evidence.call_seconds},
          {"probe_native", run.evidence.probe_via == kProbeNative ? run.evidence.call_seconds : 0.0},
          {"probe_parse", probe_parse},
          {"plan", t.plan},
          {"build", t.build},
          {"content", t.content},
          {"record", t.record},
          {"ledger", t.ledger},
          {"ods", t.load + probe_parse + t.plan + t.record + t.ledger},
          {"total", seconds_since(run.started)}};
}

std::string details_of(const RunContext& run, const json& counts, std::map<std::string, double> node_seconds,
                       double saved, const std::optional<run::RunMetrics>& metrics = std::nullopt) {
  run::RunDetails d;
  d.recorded_by = "ods state run";
  d.summary = counts.value("summary", "");
  d.counts = counts;
  d.timings = timings_of(run);
  d.probe = probe_details_of(run.evidence);
  d.node_seconds = std::move(node_seconds);
  d.time_saved_seconds = saved;
  d.exact_evidence_seconds = run.exact_evidence_seconds;
  d.exact_evidence_skipped = run.exact_evidence_skipped;
  d.metrics = metrics;
  return run::to_json(d);
}

// The names of the plan's nodes dbt did not build, with dbt's status ("orders (error)").
std::vector<std::string> failed_nodes(const planner::ExecutionPlan& plan, const planner::RunOutcome& outcome) {
  std::vector<std::string> out;
  for (const auto& e : plan.entries) {
    auto it = outcome.node_status.find(e.id);
    if (it != outcome.node_status.end() && run::node_result(it->second) == run::NodeResult::failed)
      out.push_back(e.name + " (" + it->second + ")");
  }
  return out;
}

// The line in a terminal; the JSON document and the Markdown as the flags ask. False when a
// --summary or --json-file could not be written.
bool print_summary(const CommandContext& ctx, const RunContext& run, const json& counts, const std::string& run_id,
                   const std::string& outcome, double saved, const std::vector<std::string>& failed = {},
                   const std::vector<std::string>& failed_checks = {}, const std::string& dbt_errors = "") {
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
    if (!failed_checks.empty()) {
      *ctx.out << "ods: failed checks (their readers were skipped and keep their last state; the checks run "
                  "again until they pass):";
      for (const auto& c : failed_checks) *ctx.out << " " << c;
      *ctx.out << "\n";
    }
  }
  if (!report_wanted(ctx)) return true;
  CommandSummary summary = planned_summary(ctx, run.plan, "run", false, saved);
  summary.built = counts.value("built", 0);
  summary.failed = counts.value("failed", 0);
  summary.skipped = counts.value("skipped", 0);
  summary.outcome = outcome;
  auto document = [&] {
    const json run_doc{{"run_id", run_id},
                       {"outcome", outcome},
                       {"counts", counts},
                       {"timings", timings_of(run)},
                       {"probe_seconds", run.evidence.probe_seconds},
                       {"time_saved_seconds", saved},
                       {"peak_rss_mb", peak_rss_mb()},
                       {"recorded_from", run.recorded_from},
                       {"parse_fast_path", parse_fast_path_json(run.parse_fast_path)},
                       {"failed_checks", failed_checks}};
    return document_of_members({{"checks", planner::to_json(run.checks, true)},
                                {"plan", planner::to_json(run.plan, true)},
                                {"run", run_doc.dump(2)},
                                {"summary", to_json(summary).dump(2)}});
  };
  return deliver_report(ctx, document, [&] {
    MarkdownInput in = markdown_input(run.plan, summary);
    add_check_rows(in, run.checks);
    in.failed_nodes = failed;
    in.failed_checks = failed_checks;
    in.dbt_errors = dbt_errors;
    return in;
  });
}

// The ledger's digest of the inputs recorded (without evidence): the one computed during the
// build when they are the planned project's.
std::string inputs_digest_of(const RunContext& run, const LoadedProject& recorded) {
  if (&recorded == &run.project && run.planned_inputs_digest.valid()) return run.planned_inputs_digest.get();
  return planner::inputs_digest(recorded.dbt_project->inputs);
}

// The scope's totals with this run counted (run.metrics_part, ended now with `outcome`), set in
// run.metrics; nullopt (and a warning) when the ledger cannot be read: the entry then carries
// none, and the next run adds to the totals before it.
std::optional<run::RunMetrics> count_run(const CommandContext& ctx, RunContext& run, std::string_view outcome) {
  auto totals = run::latest_metrics(run.store, run.scope);
  if (!totals) {
    *ctx.err << "ods: warning: this run is not counted in the scope's metrics: " << totals.error().message << "\n";
    return std::nullopt;
  }
  run.metrics_part.outcome = std::string(outcome);
  run.metrics_part.seconds = seconds_since(run.started);
  run.metrics_part.finished_at = std::chrono::duration<double>(ctx.env.clock->now().time_since_epoch()).count();
  run.metrics = run::add_run(std::move(*totals), run.metrics_part);
  return run.metrics;
}

}  // namespace

void begin_metrics(RunContext& run) { run.metrics_part = run::plan_contribution(run.plan, run.project.inputs); }

void start_inputs_digest(RunContext& run) {
  run.planned_inputs_digest = std::async(std::launch::async, [project = run.project.dbt_project] {
                                return planner::inputs_digest(project->inputs);
                              }).share();
}

namespace {

// A run that built nothing records a snapshot only for the compile keys it learned
// (planner::compile_keys_to_record): the recorded state with those keys, under `run_id`. Returns
// the committed snapshot's id, or "" when there was nothing to learn or the commit failed (a
// warning: the run still reused everything, and the next one compiles those nodes again).
std::string record_learned_compile_keys(const CommandContext& ctx, RunContext& run, const std::string& run_id) {
  if (!run.head) return "";
  const std::vector<std::string> ids = planner::compile_keys_to_record(run.project.inputs, run.head->snapshot);
  if (ids.empty()) return "";
  planner::RunOutcome outcome;  // nothing built or tested: every node kept, only keys learned
  outcome.run_id = run_id;
  outcome.started_at = ctx.env.now();
  auto committed = commit_outcome(run.store, run.scope, run.project.inputs, std::move(run.head), outcome, *ctx.err);
  if (!committed) {
    *ctx.err << "ods: warning: the compile keys this run confirmed are not recorded (" << committed.error().message
             << "); the next run compiles those nodes again\n";
    return "";
  }
  std::string names;
  for (const auto& id : ids) names += (names.empty() ? "" : ", ") + id;
  step(ctx, "recorded the compile key of " + std::to_string(ids.size()) +
                " node(s) whose compile matched their recorded SQL, so the next run need not compile them (" + names +
                ")");
  run.head = Head{committed->stored, std::move(committed->snapshot)};
  return committed->stored.id;
}

}  // namespace

int finish_without_build(const CommandContext& ctx, RunContext& run) {
  const auto t = Clock::now();
  const std::string run_id = random_run_id();
  const std::string snapshot_id = record_learned_compile_keys(ctx, run, run_id);
  const double saved = run::time_saved_seconds(run.store, run.scope, run.plan);
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
                              details_of(run, counts, {}, saved,
                                         [&] {
                                           begin_metrics(run);
                                           run.metrics_part.build_seconds_saved = saved;
                                           return count_run(ctx, run, run::kOutcomeSucceeded);
                                         }()),
                              snapshot_id.empty() ? std::nullopt : std::optional<std::string>(snapshot_id)};
  append_ledger_entry(ctx, run.store, ledger);
  run.timings.ledger = seconds_since(t);
  return print_summary(ctx, run, counts, run_id, "reused", saved) ? kExitOk : kExitFailed;
}

void record_cut_off_end(const CommandContext& ctx, RunContext& run, const planner::ExecutionPlan& cut, double saved,
                        bool run_failed) {
  const auto t = Clock::now();
  run.metrics_part.build_seconds_saved += saved;
  const json counts{{"built", 0},
                    {"reused", cut.count(planner::Action::reuse)},
                    {"failed", 0},
                    {"skipped", 0},
                    {"summary", "early cutoff: every node held back reused"}};
  const auto metrics = count_run(ctx, run, run_failed ? run::kOutcomeFailed : run::kOutcomeSucceeded);
  const contracts::RunRecord ledger{random_run_id(),
                                    run.scope,
                                    ctx.env.now(),
                                    ctx.env.now(),
                                    "reused",
                                    "",
                                    planner::to_json(cut, false),
                                    details_of(run, counts, {}, saved, metrics),
                                    std::nullopt};
  append_ledger_entry(ctx, run.store, ledger);
  run.timings.ledger += seconds_since(t);
}

int finish_dry_run(const CommandContext& ctx, const planner::ExecutionPlan& plan, const planner::CheckPlan& checks,
                   contracts::StateStore* store) {
  if (!report_wanted(ctx)) return kExitOk;
  const double saved = store == nullptr ? 0 : run::time_saved_seconds(*store, plan.scope, plan);
  const CommandSummary summary = planned_summary(ctx, plan, "run", true, saved);
  auto document = [&] {
    return document_of_members({{"checks", planner::to_json(checks, true)},
                                {"plan", planner::to_json(plan, true)},
                                {"run", "null"},
                                {"summary", to_json(summary).dump(2)}});
  };
  auto markdown = [&] {
    MarkdownInput in = markdown_input(plan, summary);
    add_check_rows(in, checks);
    return in;
  };
  return deliver_report(ctx, document, markdown) ? kExitOk : kExitFailed;
}

int record_wave(const CommandContext& ctx, RunContext& run, const dbt::DbtCommandResult& build,
                const WaveEvidence& evidence, WaveRecord& out) {
  auto t = Clock::now();
  const char* failed_early = "dbt build failed before running any node";
  auto as_run = project_as_run(ctx, evidence.one_parse, evidence.manifest_written ? "" : build.invocation_id);
  if (!as_run) return report_nothing_recorded(ctx, build, failed_early, as_run.error());
  if (as_run->reread()) {
    run.recorded_from = "manifest";
    // what the plan's inputs got from the probe (ProjectAsRun::as_run is this call's own copy)
    if (auto hooks = fingerprint_target_reads(ctx, *as_run->as_run, run.evidence.target); !hooks)
      return report_nothing_recorded(ctx, build, failed_early, hooks.error());
  }
  const LoadedProject& built = as_run->of(run.project);
  auto loaded = load_run(ctx, built, RunKind::build, as_run->written_by());
  if (!loaded) return report_nothing_recorded(ctx, build, failed_early, loaded.error());
  // The incremental models built for the first time: the code their next compile renders.
  std::optional<LoadedProject> recompiled;
  if (run.dbt != nullptr && built.dbt_project) {
    double seconds = 0;
    auto code =
        recompile_first_incremental_builds(ctx, *run.dbt, *built.dbt_project, built.inputs, loaded->outcome.node_status,
                                           run.evidence.relations_exist, run.evidence.relation_kinds, seconds);
    run.timings.compile += seconds;
    t += std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));  // dbt's, not record's
    if (!code.empty()) {
      recompiled = built;  // a copy: the planned project stays as planned (the ledger's digest reads it)
      dbt::take_recompiled_code(recompiled->inputs, code);
      // Their recompiled code is the incremental form their key stands for (docs/compile-key.md); a
      // re-read project computed its keys afresh.
      if (!as_run->reread()) set_aside_keys_of_recompiled(recompiled->inputs, code, run.incremental_keys_set_aside);
    }
  }
  const LoadedProject& project = recompiled ? *recompiled : built;
  auto committed =
      run::commit_wave(run.store, run.scope, project.inputs, run.project.inputs, std::move(run.head), run.plan,
                       loaded->outcome, {evidence.node_contents, evidence.node_identities}, *ctx.err);
  if (!committed) {  // a failed commit ends the run, head and all
    return report(ctx, not_recorded(committed.error(), "the build", "the next run plans against the newer state"));
  }
  // What a later wave plans and commits on. The ledger entry names the snapshot: its id is kept
  // before the head takes the committed state (read after the move, it was "").
  const std::string snapshot_id = committed->stored.id;
  run.head = Head{std::move(committed->stored), std::move(committed->snapshot)};
  run.timings.record += seconds_since(t);
  t = Clock::now();
  out = WaveRecord{};
  out.saved = run::time_saved_seconds(run.store, run.scope, run.plan);
  const run::NodeCounts counts_of_wave = run::count_node_results(loaded->outcome.node_status);
  out.built = counts_of_wave.built;
  out.skipped = counts_of_wave.skipped;
  out.failed = counts_of_wave.failed;
  out.run_id = loaded->outcome.run_id;
  out.summary = loaded->summary;
  out.failed_nodes = failed_nodes(run.plan, loaded->outcome);
  out.failed_checks = loaded->failed_checks;
  out.failed_build = build.exit_code != 0;
  run::HeldBack held_back =
      run::split_held_back(project.inputs, project.dbt_project->tests_of, loaded->outcome.node_status,
                           out.failed_checks, out.failed_build, evidence.held_back);
  out.to_build_later = std::move(held_back.to_build_later);
  out.skipped_below_failure = std::move(held_back.skipped_below_failure);
  out.skipped += static_cast<int>(out.skipped_below_failure.size());
  const std::string outcome = run::build_outcome(build.exit_code, out.built);
  for (const auto& [id, seconds] : loaded->node_seconds) run.metrics_part.build_seconds += seconds;
  run.metrics_part.build_seconds_saved += out.saved;
  std::optional<run::RunMetrics> metrics;
  if (out.to_build_later.empty())  // the run's last wave
    metrics = count_run(
        ctx, run, out.failed_build || evidence.earlier_wave_failed ? run::kOutcomeFailed : run::kOutcomeSucceeded);
  json counts{{"built", out.built},
              {"reused", run.plan.count(planner::Action::reuse)},
              {"failed", out.failed},
              {"skipped", out.skipped},
              {"summary", loaded->summary}};
  contracts::RunRecord ledger{loaded->outcome.run_id,
                              run.scope,
                              loaded->outcome.started_at,
                              loaded->finished_at,
                              outcome,
                              inputs_digest_of(run, project),
                              planner::to_json(run.plan, false),
                              details_of(run, counts, loaded->node_seconds, out.saved, metrics),
                              snapshot_id};
  append_ledger_entry(ctx, run.store, ledger);
  run.timings.ledger += seconds_since(t);
  return kExitOk;
}

int finish_run(const CommandContext& ctx, const RunContext& run, const std::vector<WaveRecord>& waves,
               const dbt::DbtCommandResult& last_build) {
  int built = 0, failed = 0, skipped = 0;
  double saved = 0;
  std::vector<std::string> failed_names, failed_checks;
  std::string summary;
  for (const auto& w : waves) {
    built += w.built;
    failed += w.failed;
    skipped += w.skipped;
    saved += w.saved;
    failed_names.insert(failed_names.end(), w.failed_nodes.begin(), w.failed_nodes.end());
    failed_checks.insert(failed_checks.end(), w.failed_checks.begin(), w.failed_checks.end());
    summary += (summary.empty() ? "" : "; ") + w.summary;
  }
  if (waves.size() > 1) summary = std::to_string(waves.size()) + " waves: " + summary;
  const std::string outcome = run::build_outcome(last_build.exit_code, built);
  json counts{{"built", built},
              {"reused", run.plan.count(planner::Action::reuse)},
              {"failed", failed},
              {"skipped", skipped},
              {"summary", summary}};
  const bool delivered = print_summary(ctx, run, counts, waves.empty() ? "" : waves.back().run_id, outcome, saved,
                                       failed_names, failed_checks, last_build.error_text);
  const int code = finish_after_dbt(
      ctx, last_build,
      "dbt build failed; the nodes that failed or were skipped keep their last state and build next time");
  return delivered ? code : kExitFailed;
}

}  // namespace ods::cli
