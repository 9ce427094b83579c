// `ods pod`: the runner-pod mode (Kubernetes). Compiles and probes like `ods state run`, sends
// the project inputs to the controller's callback server, builds what the controller's plan
// selects, and sends the run results; the controller plans and records (the pod has no
// state store). Protocol: callback_protocol/ (docs/kubernetes.md, "Runner pod ↔ controller").
// Early cutoff (docs/early-cutoff.md): where content can be measured the pod asks for waves,
// measures what each wave built and reports every wave but the last; the controller answers
// the next selection. The parse's fast path (docs/kubernetes.md, "Nothing changed in a runner
// pod"): before it compiles, the pod asks the controller for the state its run continues (the
// head step: only nodes whose compile key changed compile) and restores the kept parse of the
// run's scope from the packages cache (kept_parse.h); after a run recorded as success or
// reused it saves the parse there.
#include <sys/resource.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "callback_client.h"
#include "commands.h"
#include "dbt_steps.h"
#include "evidence_gathering.h"
#include "flag_names.h"
#include "kept_parse.h"
#include "ods/base/elapsed.h"
#include "ods/callback/pod_environment.h"
#include "ods/callback/protocol.h"
#include "ods/run/cutoff_waves.h"
#include "ods/run/wave_plans.h"
#include "plan_format.h"
#include "pod_environment.h"
#include "project_loader.h"
#include "run_preparation.h"

namespace ods::cli {

namespace {

using Clock = std::chrono::steady_clock;
namespace pod_env = callback::pod_env;

// The flag, else the environment variable.
std::string setting(const ParsedArgs& args, const CommandContext& ctx, const std::string& flag, std::string_view env) {
  return args.has(flag) ? args.get(flag) : ctx.env.getenv(std::string(env));
}

Result<CallbackEndpoint> endpoint_of(const ParsedArgs& args, const CommandContext& ctx) {
  CallbackEndpoint e;
  e.base_url = setting(args, ctx, kFlagCallback, pod_env::kCallbackUrl);
  e.run = setting(args, ctx, kFlagRun, pod_env::kRun);
  const std::string token_file = setting(args, ctx, kFlagTokenFile, pod_env::kRunTokenFile);
  if (e.base_url.empty()) return fail("usage", "--callback (or $ODS_CALLBACK_URL) is required: the controller's URL");
  const auto slash = e.run.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == e.run.size() ||
      e.run.find('/', slash + 1) != std::string::npos)
    return fail("usage", "--run (or $ODS_RUN) must be NAMESPACE/NAME, not '" + e.run + "'");
  if (token_file.empty()) return fail("usage", "--token-file (or $ODS_RUN_TOKEN_FILE) is required");
  std::ifstream in(token_file);
  if (!in) return fail("usage", token_file + ": cannot read the run token");
  std::getline(in, e.token);
  while (!e.token.empty() && (e.token.back() == '\r' || e.token.back() == ' ')) e.token.pop_back();
  if (e.token.empty()) return fail("usage", token_file + ": the run token is empty");
  const std::string retry = setting(args, ctx, kFlagRetryFor, "ODS_CALLBACK_RETRY_SECONDS");
  if (!retry.empty()) {
    long seconds = 0;
    auto [end, ec] = std::from_chars(retry.data(), retry.data() + retry.size(), seconds);
    if (ec != std::errc() || end != retry.data() + retry.size() || seconds < 0)
      return fail("usage", "--retry-for must be a number of seconds, not '" + retry + "'");
    e.retry_for = std::chrono::seconds(seconds);
  }
  return e;
}

// POSTs and returns the 200 answer's body; anything else is an error saying why.
Result<std::string> exchange(const CallbackEndpoint& endpoint, const std::string& step, const std::string& body,
                             const CommandContext& ctx) {
  auto answer = post_to_controller(endpoint, step, body, *ctx.err);
  if (!answer) return std::unexpected(answer.error());
  if (answer->status != 200)
    return fail("refused", "the controller refused the " + step + " (" + std::to_string(answer->status) +
                               "): " + callback_error_text(*answer));
  return answer->body;
}

// The controller's plan as `ods state run` prints its own (print_plan_table), then one line
// naming the run. A plan document the table cannot be made from is a protocol error.
Result<void> print_plan(const CommandContext& ctx, const callback::PlanAnswer& plan) {
  if (ctx.format != "json") {
    auto table = print_plan_table_json(*ctx.out, plan.plan_json);
    if (!table) return table;
  }
  *ctx.out << "ods: plan of run " << plan.run_id << ": build " << plan.build << ", reuse " << plan.reuse << "\n";
  return {};
}

// The nodes of `inputs` whose compile waited for their upstream (compile_needs_upstream) take
// their code from `built`, the project of the manifest the dbt build that compiled them wrote
// (ADR-0032), so the controller records what dbt built and the next run can reuse them. A node
// that build did not compile keeps its incomplete evidence (it builds again next time).
void take_code_compiled_by_build(planner::ProjectInputs& inputs, const planner::ProjectInputs& built) {
  for (auto& node : inputs.nodes) {
    if (node.compile_needs_upstream.empty()) continue;
    for (const auto& b : built.nodes) {
      if (b.id != node.id || !b.incomplete.empty() || !b.compile_needs_upstream.empty()) continue;
      node = b;
      break;
    }
  }
}

// dbt build of the selection (without any data or unit test unless `run_tests`), read back into
// a BuildReport; `inputs`: take_code_compiled_by_build, with the hooks of the build's project
// fingerprinted by `probed_target` as the plan's were.
Result<callback::BuildReport> build_selection(const CommandContext& ctx, DbtSession& dbt,
                                              const std::vector<std::string>& select,
                                              const std::vector<std::string>& target_path,
                                              planner::ProjectInputs& inputs,
                                              const std::map<std::string, std::string>& probed_target, bool run_tests) {
  std::vector<std::string> args{"build", kFlagSelect};
  args.insert(args.end(), select.begin(), select.end());
  // runTests: false (without_checks): dbt's own way to build without any check.
  if (!run_tests) args.insert(args.end(), {"--exclude-resource-type", "test", "unit_test"});
  args.insert(args.end(), target_path.begin(), target_path.end());
  const auto t = Clock::now();
  auto built = dbt.run_with_progress(args, "dbt build");
  if (!built) return std::unexpected(built.error());
  if (built->interrupted) return fail("interrupted", "interrupted: dbt stopped; the run is not reported");
  callback::BuildReport report;
  report.exit_code = built->exit_code;
  report.error_text = built->error_text.substr(0, 4000);
  report.seconds = seconds_since(t);
  auto project = load_project(ctx);
  if (project && fingerprint_target_reads(ctx, *project, probed_target))
    take_code_compiled_by_build(inputs, project->inputs);
  auto run = project ? load_run(ctx, *project) : Result<LoadedRun>(std::unexpected(project.error()));
  if (!run) {
    if (built->exit_code == 0) return std::unexpected(run.error());
    return report;  // dbt failed before running any node: results stay empty
  }
  report.results = callback::BuildResults{run->outcome.run_id,
                                          run->outcome.started_at,
                                          run->finished_at,
                                          run->outcome.node_status,
                                          run->outcome.node_tests_passed,
                                          run->outcome.source_tests_passed,
                                          run->node_seconds,
                                          run->summary};
  return report;
}

// Builds the controller's selections wave by wave: after each wave it measures the content of
// what it built (when the pod asked for waves) and, unless the wave was the last or failed,
// reports it and builds the selection the controller answers. The last wave's build and
// contents go into `results` (none when the controller had nothing left to build).
class WaveBuilder {
 public:
  WaveBuilder(const CommandContext& ctx, DbtSession& dbt, const CallbackEndpoint& endpoint,
              const std::vector<std::string>& target_path, std::string adapter_type, WarehouseOptions warehouse,
              bool measuring, std::map<std::string, std::string> probed_target, bool run_tests)
      : ctx_(ctx),
        dbt_(dbt),
        endpoint_(endpoint),
        target_path_(target_path),
        adapter_type_(std::move(adapter_type)),
        warehouse_(std::move(warehouse)),
        measuring_(measuring),
        probed_target_(std::move(probed_target)),
        run_tests_(run_tests) {}

  Result<void> build(const callback::PlanAnswer& plan, callback::ResultsRequest& results) const {
    callback::WaveInfo wave = plan.wave.value_or(callback::WaveInfo{});
    std::vector<std::string> select = plan.select;
    while (!select.empty()) {
      if (!wave.last || wave.number > 1) step(ctx_, "wave " + std::to_string(wave.number) + ": " + wave.why);
      auto built = build_selection(ctx_, dbt_, select, target_path_, results.inputs, probed_target_, run_tests_);
      if (!built) return std::unexpected(built.error());
      auto contents = measure(results.inputs, *built);
      if (wave.last || built->exit_code != 0 || !built->results) {
        if (!wave.last)
          step(ctx_, "wave " + std::to_string(wave.number) + " failed: the nodes held back are not built");
        results.build = std::move(*built);
        results.node_contents = std::move(contents);
        return {};
      }
      callback::WaveReport report{wave.number, results.inputs, std::move(*built), std::move(contents)};
      step(ctx_, "reporting wave " + std::to_string(wave.number) + " to the controller");
      auto body = exchange(endpoint_, "wave", callback::to_json(report), ctx_);
      if (!body) return std::unexpected(body.error());
      auto next = callback::parse_wave_answer(*body);
      if (!next)
        return fail("protocol", "the controller's wave answer: " + next.error().field + ": " + next.error().message);
      step(ctx_, "early cutoff: " + std::to_string(next->cut_off) + " held-back nodes reused; " +
                     (next->select.empty() ? std::string("nothing left to build")
                                           : "wave " + std::to_string(next->wave.number) + " builds the rest"));
      wave = next->wave;
      select = next->select;
    }
    return {};
  }

 private:
  // The content of the built nodes some node reads (run::nodes_with_readers), measured now.
  std::map<std::string, planner::DataVersion> measure(const planner::ProjectInputs& inputs,
                                                      const callback::BuildReport& built) const {
    if (!measuring_ || !built.results) return {};
    std::vector<std::string> succeeded;
    for (const auto& [id, status] : built.results->node_status)
      if (status == "success") succeeded.push_back(id);
    std::vector<std::string> warnings;
    auto contents = measure_contents(dbt_, adapter_type_, warehouse_, ctx_.target_dir.string(),
                                     run::nodes_with_readers(inputs, succeeded), ctx_.env.now(), warnings);
    for (const auto& w : warnings) *ctx_.err << "ods: warning: " << w << "\n";
    return contents;
  }

  const CommandContext& ctx_;
  DbtSession& dbt_;
  const CallbackEndpoint& endpoint_;
  const std::vector<std::string>& target_path_;
  std::string adapter_type_;
  WarehouseOptions warehouse_;
  bool measuring_;
  std::map<std::string, std::string> probed_target_;  // GatheredEvidence::target
  bool run_tests_;                                    // false: spec.policies.runTests false (without_checks)
};

// CPU seconds of this process and of every child it waited for (dbt, git): the pod's CPU time.
double cpu_seconds_so_far() {
  double total = 0;
  for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage usage{};
    if (getrusage(who, &usage) != 0) continue;
    total += static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
             static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  }
  return total;
}

// The pod's last line: its wall seconds since run_pod started (after the git checkout, which
// dispatch does) and its CPU seconds since the process started (docs/benchmarks.md).
void say_pod_time(const CommandContext& ctx, Clock::time_point started) {
  char line[128];
  std::snprintf(line, sizeof line,
                "pod time: %.2f s wall after the checkout, %.2f s CPU (ods and every process it started, git included)",
                seconds_since(started), cpu_seconds_so_far());
  step(ctx, line);
}

// What the run continues, known before its compile: the controller's head of the run's scope
// (nullopt when the controller did not answer the head step: an older controller; then every
// node compiles, as before) and the slot of the scope's kept parse (nullopt without a packages
// cache or a scope), restored into the target folder.
struct ContinuedState {
  std::optional<callback::HeadAnswer> head;
  std::optional<KeptParseSlot> kept_parse;

  // For prepare_run: the head's snapshot (nullptr when the scope recorded nothing); without a
  // head, none (prepare_run compiles the whole project, as `ods pod` did before the head step).
  RecordedSnapshot recorded() const {
    if (!head) return {};
    return [this](const planner::ProjectInputs&) -> Result<const planner::StateSnapshot*> {
      return head->snapshot ? &*head->snapshot : nullptr;
    };
  }
};

ContinuedState continued_state(const ParsedArgs& args, const CommandContext& ctx, const CallbackEndpoint& endpoint) {
  ContinuedState out;
  auto answer = post_to_controller(endpoint, "head", callback::to_json(callback::HeadRequest{}), *ctx.err);
  auto head = !answer                 ? Result<callback::HeadAnswer>(std::unexpected(answer.error()))
              : answer->status != 200 ? fail("refused", callback_error_text(*answer))
                                      : [&]() -> Result<callback::HeadAnswer> {
    auto parsed = callback::parse_head_answer(answer->body);
    if (!parsed) return fail("protocol", parsed.error().field + ": " + parsed.error().message);
    return std::move(*parsed);
  }();
  if (!head) {
    step(ctx, "the controller did not say what the run continues (" + head.error().message +
                  "): the whole project compiles and no parse is kept");
    return out;
  }
  out.head = std::move(*head);
  const std::string cache = setting(args, ctx, kFlagPackagesCache, callback::pod_env::kPackagesCache);
  if (cache.empty()) return out;
  out.kept_parse = kept_parse_slot(cache, out.head->scope);
  step(ctx, restore_kept_parse(*out.kept_parse, ctx.target_dir));
  return out;
}

// spec.policies.runTests: false: the run runs no check (docs/kubernetes.md, "Runs without tests").
// The inputs say the project has none (checks digests and checks_need_build cleared), so the
// controller plans no check (no `source:` or `<node>,resource_type:test` selectors), builds no
// node only so its unit tests run (checks_not_passed) and records no new pass; dbt build
// excludes tests too (build_selection). A pass recorded by an earlier run stays on its build.
void ask_for_no_checks(callback::InputsRequest& inputs) {
  inputs.check_selected = std::vector<std::string>{};
  for (auto& node : inputs.inputs.nodes) {
    node.checks_digest.clear();
    node.checks_need_build = false;
  }
  for (auto& source : inputs.inputs.sources) source.checks_digest.clear();
}

int run_pod(const ParsedArgs& args, CommandContext& ctx) {
  const auto started = Clock::now();
  auto endpoint = endpoint_of(args, ctx);
  if (!endpoint) return report(ctx, endpoint.error());
  auto run_tests = pod_runs_tests(args, ctx.env);
  if (!run_tests) return report(ctx, run_tests.error());
  const ContinuedState continued = continued_state(args, ctx, *endpoint);
  auto prepared = prepare_run(args, ctx, DeclaredPackages::install, CompileDeferral::until_build, continued.recorded());
  if (!prepared) return prepared.error();
  LoadedProject& project = prepared->project;

  callback::InputsRequest inputs;
  inputs.compile_seconds = prepared->compile_seconds;
  if (prepared->selection) {
    inputs.selected = std::move(prepared->selection->nodes);
    inputs.check_selected = std::move(prepared->selection->checks);
  }
  GatheredEvidence evidence = prepared->probe(ctx, ctx.env.now());
  inputs.probe_seconds = prepared->probe_seconds;
  if (int code = prepared->settle_compiles(ctx, evidence); code != kExitOk) return code;
  inputs.inputs = std::move(project.inputs);
  inputs.relations_exist = evidence.relations_exist;
  inputs.probe = probe_details_of(evidence);
  if (!*run_tests) {
    ask_for_no_checks(inputs);
    step(ctx, "runTests is false: no data or unit test runs, none is planned and no pass is recorded");
  }
  auto cutoff = run::cutoff_mode_from_string(
      setting(args, ctx, kFlagCutoff, "ODS_CUTOFF").empty() ? "auto" : setting(args, ctx, kFlagCutoff, "ODS_CUTOFF"));
  if (!cutoff) return report(ctx, cutoff.error());
  if (*cutoff != run::CutoffMode::off && content_measurable(project.adapter_type))
    inputs.cutoff = *cutoff == run::CutoffMode::always ? "always" : "auto";

  step(ctx, "sending the project inputs to the controller (run " + endpoint->run + ")");
  auto plan_body = exchange(*endpoint, "inputs", callback::to_json(inputs), ctx);
  if (!plan_body) return report(ctx, plan_body.error());
  auto plan = callback::parse_plan_answer(*plan_body);
  if (!plan)
    return report(ctx, {"protocol", "the controller's plan: " + plan.error().field + ": " + plan.error().message});
  if (auto printed = print_plan(ctx, *plan); !printed) return report(ctx, printed.error());

  callback::ResultsRequest results;
  results.inputs = std::move(inputs.inputs);
  if (plan->select.empty()) {
    step(ctx, "all " + std::to_string(plan->reuse) + " nodes reused; dbt build not started");
  } else {
    step(ctx, "building " + std::to_string(plan->build) + " of " + std::to_string(plan->build + plan->reuse) +
                  " nodes, reusing " + std::to_string(plan->reuse));
    const WaveBuilder waves{ctx,
                            *prepared->session,
                            *endpoint,
                            prepared->target_path,
                            project.adapter_type,
                            prepared->warehouse,
                            inputs.cutoff.has_value(),
                            evidence.target,
                            *run_tests};
    auto built = waves.build(*plan, results);
    if (!built) {
      const int code = report(ctx, built.error());
      return built.error().code == "interrupted" ? kExitInterrupted : code;
    }
  }
  results.total_seconds = seconds_since(started);
  step(ctx, "sending the run results to the controller");
  auto recorded_body = exchange(*endpoint, "results", callback::to_json(results), ctx);
  if (!recorded_body) return report(ctx, recorded_body.error());
  auto recorded = callback::parse_recorded_answer(*recorded_body);
  if (!recorded)
    return report(ctx,
                  {"protocol", "the controller's answer: " + recorded.error().field + ": " + recorded.error().message});
  if (ctx.format == "json") *ctx.out << *recorded_body << "\n";
  step(ctx, recorded->outcome + ": built " + std::to_string(recorded->built) + ", reused " +
                std::to_string(recorded->reused) + ", failed " + std::to_string(recorded->failed) + ", skipped " +
                std::to_string(recorded->skipped) + (recorded->already_recorded ? " (recorded before)" : ""));
  if (results.build && results.build->exit_code != 0) {
    if (!results.build->error_text.empty()) *ctx.err << "ods: dbt reported:\n" << results.build->error_text << "\n";
    *ctx.err << "ods: dbt build failed; the nodes that failed or were skipped keep their last state\n";
    return kExitFailed;
  }
  const bool succeeded = recorded->outcome == "success" || recorded->outcome == "reused";
  if (succeeded && continued.kept_parse) step(ctx, save_kept_parse(*continued.kept_parse, ctx.target_dir));
  say_pod_time(ctx, started);
  return succeeded ? kExitOk : kExitFailed;
}

}  // namespace

std::vector<FlagSpec> pod_flags() {
  return {
      {kFlagCallback, true, "the controller's callback URL (default: $ODS_CALLBACK_URL)"},
      {kFlagRun, true, "the run this pod reports for, NAMESPACE/NAME (default: $ODS_RUN)"},
      {kFlagTokenFile, true, "file holding the run's token (default: $ODS_RUN_TOKEN_FILE)"},
      {kFlagRetryFor, true,
       "seconds to keep retrying an unreachable controller (default: "
       "$ODS_CALLBACK_RETRY_SECONDS, else 300)"},
      {kFlagProjectDir, true, "the dbt project (default: $ODS_PROJECT_DIR, else .)"},
      {kFlagTargetPath, true, "where dbt writes its artifacts (default: $DBT_TARGET_PATH, else <project-dir>/target)"},
      {kFlagTarget, true, "the dbt target (default: $ODS_TARGET, else the profile's)"},
      {kFlagSelect, true, "dbt-style selection (see ods state plan; default: $ODS_SELECT)"},
      {kFlagExclude, true, "nodes to leave out of the selection, same syntax (default: $ODS_EXCLUDE)"},
      {kFlagDbt, true, "the dbt executable (default: $ODS_DBT, else dbt on PATH)"},
      {kFlagProfilesDir, true, "passed to dbt (default: $DBT_PROFILES_DIR)"},
      {kFlagPackagesCache, true,
       "a folder where installed dbt packages are kept by the digest of the lockfile, packages.yml and dbt's "
       "version: a hit restores them without dbt deps (default: $ODS_PACKAGES_CACHE; unset: no cache)"},
      {kFlagFormat, true, "text (default) or json (the controller's recorded answer on stdout)"},
      {kFlagRunTests, true,
       "true (default) or false: false runs no data or unit test (dbt build --exclude-resource-type test unit_test), "
       "none is planned or gates a reader, and no pass is recorded (default: $ODS_RUN_TESTS)"},
      {kFlagCutoff, true,
       "early cutoff: auto (the controller's cost model draws wave boundaries), always, or off "
       "(one wave, no content measured; default: $ODS_CUTOFF, else auto)"},
  };
}

int cmd_pod(const ParsedArgs& args, CommandContext& ctx) {
  try {
    return run_pod(args, ctx);
  } catch (const std::exception& e) {
    *ctx.err << "ods: internal error: " << e.what() << "\n";
    return kExitFailed;
  }
}

}  // namespace ods::cli
