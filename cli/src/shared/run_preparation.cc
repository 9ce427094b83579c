#include "run_preparation.h"

#include <algorithm>
#include <chrono>

#include "dbt_steps.h"
#include "exit_codes.h"
#include "flag_names.h"
#include "ods/base/elapsed.h"
#include "ods/dbt/cli/dbt_driver.h"
#include "package_install.h"
#include "parse_reuse.h"

namespace ods::cli {

namespace fs = std::filesystem;

GatheredEvidence PreparedRun::probe(const CommandContext& ctx, const std::string& now) {
  const auto started = std::chrono::steady_clock::now();
  GatheredEvidence evidence = probe_warehouse(ctx, *session, project, now, probe_parts, warehouse, too_costly_sources);
  if (auto hooks = fingerprint_target_reads(ctx, project, evidence.target); !hooks) {
    evidence.warnings.push_back("the hooks that read the target's identity stay unfingerprinted: " +
                                hooks.error().message);
    *ctx.err << "ods: warning: " << evidence.warnings.back() << "\n";
  }
  probe_seconds = seconds_since(started);
  return evidence;
}

int PreparedRun::settle_compiles(const CommandContext& ctx, const GatheredEvidence& evidence) {
  if (int code = settle_deferred_compiles(ctx, deferred_compiles, project, evidence); code != kExitOk) return code;
  const auto taken_back = confirm_incremental_keys(project.inputs, evidence.relations_exist, evidence.relation_kinds,
                                                   ctx.env.getenv("DBT_FULL_REFRESH"), &incremental_keys_set_aside);
  if (!taken_back.empty()) {
    std::string names;
    for (const auto& id : taken_back) names += (names.empty() ? "" : ", ") + id;
    step(ctx, std::to_string(taken_back.size()) +
                  " incremental model(s) kept the incremental form of their recorded SQL, which the probe did not "
                  "confirm: they build (" +
                  names + ")");
    sql_taken -= std::min(sql_taken, taken_back.size());
  }
  return kExitOk;
}

namespace {

// `dbt parse`, the parsed project read, then dbt compile of what plan_compile() leaves; the
// project read again when something was compiled, and the standing nodes given their recorded
// `sql`. Returns the project, or the exit code after reporting why not.
std::expected<LoadedProject, int> compile_changed(const CommandContext& ctx, PreparedRun& run, CompileDeferral deferral,
                                                  const RecordedSnapshot& recorded) {
  auto parse = parse_project(ctx, *run.session, run.target_path, run.parse_fast_path);
  if (!parse) return std::unexpected(parse.error());
  run.parse_fast_path_outcome = parse->fast_path ? "taken" : parse->fast_path_declined;
  auto loading = std::chrono::steady_clock::now();
  auto parsed = load_project(ctx, ProjectUse::plan_and_record, {}, parse->manifest);
  if (!parsed) return std::unexpected(report(ctx, parsed.error()));
  run.manifest = parse->manifest;
  auto snapshot = recorded(parsed->inputs);  // the recorded state, read once for the whole run
  if (!snapshot) return std::unexpected(report(ctx, snapshot.error()));
  run.load_seconds += seconds_since(loading);
  const CompilePlan plan = plan_compile(parsed->inputs, *snapshot);
  if (parse->fast_path && !plan.compile.empty()) {
    // The compile starts dbt anyway: it stands on the driver's own parse, as without the fast path
    // (one parse for every dbt command of the run, and no manifest written by the compile).
    run.parse_fast_path.enabled = false;
    run.parse_fast_path.why_disabled =
        std::to_string(plan.compile.size()) + " node(s) to compile start dbt, whose compile stands on its own parse";
    return compile_changed(ctx, run, deferral, recorded);
  }
  // Every later dbt command of the run stands on the plan's parse: the driver parses before the first.
  if (parse->fast_path) run.session = parse_before_first_command(std::move(run.session), ctx);
  LoadedProject project;
  if (plan.compile.empty()) {
    project = std::move(*parsed);
  } else {
    // Most of the project: one compile of all of it says the same and spares a long --select.
    const bool most = plan.compile.size() * 2 > parsed->inputs.nodes.size();
    // On the parse just read, the compile writes no manifest: the driver hands over what it compiled.
    const bool handed_over = run.session->one_parse() && !run.write_manifest;
    if (int code = compile_project(
            ctx, *run.session, run.target_path, deferral, &run.deferred_compiles,
            most ? std::vector<std::string>{} : plan.compile,
            handed_over ? std::vector<std::string>{dbt::kDriverNoManifest} : std::vector<std::string>{});
        code != kExitOk)
      return std::unexpected(code);
    const fs::path compiled_nodes = fs::absolute(compiled_nodes_file(ctx)).lexically_normal();
    if (handed_over) {
      std::error_code ec;
      fs::remove(compiled_nodes, ec);  // what is read is this compile's, or nothing
      if (auto written = run.session->write_compiled_nodes(compiled_nodes); !written)
        return std::unexpected(report(ctx, written.error()));
    }
    loading = std::chrono::steady_clock::now();
    auto compiled = handed_over ? load_project(ctx, ProjectUse::plan_and_record, {}, parse->manifest, compiled_nodes)
                                : load_project(ctx);
    if (!compiled) return std::unexpected(report(ctx, compiled.error()));
    run.manifest = handed_over ? parse->manifest : ctx.target_dir / "manifest.json";
    run.load_seconds += seconds_since(loading);
    project = std::move(*compiled);
  }
  run.sql_taken = apply_recorded_sql(project.inputs, plan);
  step(ctx, std::to_string(run.sql_taken) + " nodes keep their recorded compiled SQL (compile key unchanged), " +
                std::to_string(plan.compile.size()) + " compiled");
  return project;
}

}  // namespace

fs::path compiled_nodes_file(const CommandContext& ctx) { return parse_copy_dir(ctx) / "compiled_nodes.json"; }

std::expected<PreparedRun, int> prepare_run(const ParsedArgs& args, const CommandContext& ctx,
                                            DeclaredPackages packages, CompileDeferral deferral,
                                            const RecordedSnapshot& recorded) {
  const dbt::SelectionFlags selected = selection_flags(args);
  if (auto refused = refuse_foreign_selection(ctx, selected); !refused)
    return std::unexpected(report(ctx, refused.error()));
  auto scope = compile_scope_setting(args, ctx);
  if (!scope) return std::unexpected(report(ctx, scope.error()));
  auto probe_parts = probe_parts_setting(ctx);
  if (!probe_parts) return std::unexpected(report(ctx, probe_parts.error()));
  auto warehouse = warehouse_options_setting(ctx);
  if (!warehouse) return std::unexpected(report(ctx, warehouse.error()));
  auto fast_path = parse_fast_path_setting(args, ctx);
  if (!fast_path) return std::unexpected(report(ctx, fast_path.error()));
  auto native = native_probe_setting(args, ctx);
  if (!native) return std::unexpected(report(ctx, native.error()));
  warehouse->native = std::move(*native);
  PreparedRun run;
  run.probe_parts = *probe_parts;
  run.warehouse = std::move(*warehouse);
  run.session = make_dbt_session(ctx, dbt_options(args, ctx));
  run.target_path = target_path_flags(args, ctx);
  run.manifest = ctx.target_dir / "manifest.json";
  run.write_manifest = args.has(kFlagWriteManifest);
  run.parse_fast_path = std::move(*fast_path);

  if (packages == DeclaredPackages::install) {
    const std::string cache =
        args.has(kFlagPackagesCache) ? args.get(kFlagPackagesCache) : ctx.env.getenv("ODS_PACKAGES_CACHE");
    if (int code = install_packages(ctx, *run.session, cache, dbt_options(args, ctx)); code != kExitOk)
      return std::unexpected(code);
  }
  auto started = std::chrono::steady_clock::now();
  if (recorded && *scope == CompileScope::changed) {
    auto project = compile_changed(ctx, run, deferral, recorded);
    if (!project) return std::unexpected(project.error());
    run.project = std::move(*project);
    run.compile_seconds = seconds_since(started) - run.load_seconds;  // dbt's parse and compile; the reads in load
    started = std::chrono::steady_clock::now();
  } else {
    if (int code = compile_project(ctx, *run.session, run.target_path, deferral, &run.deferred_compiles);
        code != kExitOk)
      return std::unexpected(code);
    run.compile_seconds = seconds_since(started);

    started = std::chrono::steady_clock::now();
    auto project = load_project(ctx);
    if (!project) return std::unexpected(report(ctx, project.error()));
    run.project = std::move(*project);
  }
  if (selected.any()) {
    auto selection = resolve_selection(ctx, *run.session, selected, run.project.inputs, run.target_path);
    if (!selection) return std::unexpected(report(ctx, selection.error()));
    run.selection = std::move(*selection);
  }
  run.load_seconds += seconds_since(started);
  run.warehouse.native.project = run.project.dbt_project;  // the relations the native probe reads
  return run;
}

}  // namespace ods::cli
