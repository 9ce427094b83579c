// `ods state run`: compile, probe, plan, build only the BUILD set through dbt, record the run.
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "dbt_session.h"
#include "evidence_gathering.h"
#include "ods/planner/json_io.h"
#include "plan_format.h"
#include "project_loader.h"
#include "run_recording.h"
#include "selector.h"
#include "state_access.h"

namespace ods::cli {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

void step(const CommandContext& ctx, const std::string& line) {
  if (ctx.format == "text") *ctx.out << "ods: " << line << "\n" << std::flush;
  else *ctx.err << "ods: " << line << "\n";
}

DbtSettings dbt_settings(const ParsedArgs& args, const CommandContext& ctx) {
  DbtSettings s;
  s.binary = args.has("--dbt") ? args.get("--dbt") : ctx.env.getenv("ODS_DBT");
  s.profiles_dir = args.get("--profiles-dir");
  return s;
}

int report_dbt_failure(const CommandContext& ctx, const std::string& what, const dbt::DbtCommandResult& r) {
  *ctx.err << "ods: " << what << " failed (dbt exit code " << r.exit_code << ")";
  if (!r.error_text.empty()) *ctx.err << ":\n" << r.error_text;
  *ctx.err << "\n";
  return kExitFailed;
}

}  // namespace

int cmd_run(const ParsedArgs& args, CommandContext& ctx) {
  const auto started = Clock::now();
  RunTimings timings;
  auto session = make_dbt_session(ctx, dbt_settings(args, ctx));

  step(ctx, "compiling the project (dbt compile)");
  auto t = Clock::now();
  std::vector<std::string> target_path;  // dbt's own default unless --target-path was given
  if (args.has("--target-path")) target_path = {"--target-path", ctx.target_dir.string()};
  std::vector<std::string> compile{"compile"};
  compile.insert(compile.end(), target_path.begin(), target_path.end());
  auto compiled = session->run(compile);
  if (!compiled) return report(ctx, compiled.error());
  if (compiled->interrupted) return report(ctx, {"interrupted", "interrupted while compiling; nothing recorded"});
  if (compiled->exit_code != 0) return report_dbt_failure(ctx, "dbt compile", *compiled);
  timings.compile = seconds_since(t);

  auto project = load_project(ctx);
  if (!project) return report(ctx, project.error());
  planner::PlanOptions options;
  options.now = ctx.env.now();
  if (args.has("--select")) {
    auto selected = resolve_selection(project->inputs, args.get("--select"));
    if (!selected) return report(ctx, selected.error());
    options.selected = *selected;
  }

  step(ctx, "probing " + std::to_string(project->inputs.sources.size()) + " sources and checking " +
                std::to_string(project->inputs.nodes.size()) + " relations (one dbt show call)");
  t = Clock::now();
  GatheredEvidence evidence = gather_evidence(*session, project->adapter_type, ctx.target_dir.string(), project->inputs, options.now);
  timings.probe = seconds_since(t);
  for (const auto& w : evidence.warnings) *ctx.err << "ods: warning: " << w << "\n";
  options.relations_exist = evidence.relations_exist;

  const std::string scope = planner::scope_of(project->inputs.project, project->inputs.target);
  auto store = open_store(ctx, !args.has("--dry-run"));
  if (!store && !(args.has("--dry-run") && store.error().code == "not_found")) return report(ctx, store.error());
  std::optional<Head> head;
  if (store) {
    auto h = read_head(**store, scope);
    if (!h) return report(ctx, h.error());
    head = std::move(*h);
  }
  auto plan = planner::plan(project->inputs, head ? &head->snapshot : nullptr, options);
  if (!plan) return report(ctx, plan.error());
  for (const auto& w : evidence.warnings) plan->warnings.push_back(w);
  const int to_build = plan->count(planner::Action::build), to_reuse = plan->count(planner::Action::reuse);
  if (ctx.format == "text") print_plan_table(*ctx.out, *plan);

  if (args.has("--dry-run")) {
    if (ctx.format == "json")
      *ctx.out << nlohmann::json{{"plan", nlohmann::json::parse(planner::to_json(*plan, false))}, {"run", nullptr}}.dump(2)
               << "\n";
    return kExitOk;
  }
  RunContext run_ctx{scope, **store, std::move(head), std::move(*plan), std::move(evidence), timings, started, {}};
  for (const auto& source : project->inputs.sources)
    if (source.version) run_ctx.source_versions[source.id] = *source.version;
  if (to_build == 0) {
    step(ctx, "all " + std::to_string(to_reuse) + " nodes reused; dbt build not started");
    return finish_without_build(ctx, run_ctx);
  }
  step(ctx, "building " + std::to_string(to_build) + " of " + std::to_string(to_build + to_reuse) + " nodes, reusing " +
                std::to_string(to_reuse));
  std::vector<std::string> build{"build", "--select"};
  for (const auto& e : run_ctx.plan.entries)
    if (e.action == planner::Action::build) build.push_back(e.name);
  build.insert(build.end(), target_path.begin(), target_path.end());
  t = Clock::now();
  auto built = session->run_with_progress(build, "dbt build");
  if (!built) return report(ctx, built.error());
  run_ctx.timings.build = seconds_since(t);
  if (built->interrupted) {
    *ctx.err << "ods: interrupted: dbt stopped; nothing recorded, the state is as it was before this run\n";
    return 130;
  }
  return record_build(ctx, run_ctx, *built);
}

}  // namespace ods::cli
