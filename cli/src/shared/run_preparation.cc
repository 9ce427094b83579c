#include "run_preparation.h"

#include <chrono>

#include "dbt_steps.h"
#include "exit_codes.h"
#include "flag_names.h"
#include "ods/base/elapsed.h"
#include "package_install.h"

namespace ods::cli {

GatheredEvidence PreparedRun::probe(const CommandContext& ctx, const std::string& now) {
  const auto started = std::chrono::steady_clock::now();
  GatheredEvidence evidence = probe_warehouse(ctx, *session, project, now, probe_parts, warehouse);
  if (auto hooks = fingerprint_target_reads(ctx, project, evidence.target); !hooks) {
    evidence.warnings.push_back("the hooks that read the target's identity stay unfingerprinted: " +
                                hooks.error().message);
    *ctx.err << "ods: warning: " << evidence.warnings.back() << "\n";
  }
  probe_seconds = seconds_since(started);
  return evidence;
}

std::expected<PreparedRun, int> prepare_run(const ParsedArgs& args, const CommandContext& ctx,
                                            DeclaredPackages packages, CompileDeferral deferral) {
  auto probe_parts = probe_parts_setting(ctx);
  if (!probe_parts) return std::unexpected(report(ctx, probe_parts.error()));
  auto warehouse = warehouse_options_setting(ctx);
  if (!warehouse) return std::unexpected(report(ctx, warehouse.error()));
  PreparedRun run;
  run.probe_parts = *probe_parts;
  run.warehouse = std::move(*warehouse);
  run.session = make_dbt_session(ctx, dbt_options(args, ctx));
  run.target_path = target_path_flags(args, ctx);

  if (packages == DeclaredPackages::install) {
    const std::string cache =
        args.has(kFlagPackagesCache) ? args.get(kFlagPackagesCache) : ctx.env.getenv("ODS_PACKAGES_CACHE");
    if (int code = install_packages(ctx, *run.session, cache, dbt_options(args, ctx)); code != kExitOk)
      return std::unexpected(code);
  }
  auto started = std::chrono::steady_clock::now();
  if (int code = compile_project(ctx, *run.session, run.target_path, deferral, &run.deferred_compiles); code != kExitOk)
    return std::unexpected(code);
  run.compile_seconds = seconds_since(started);

  started = std::chrono::steady_clock::now();
  auto project = load_project(ctx);
  if (!project) return std::unexpected(report(ctx, project.error()));
  run.project = std::move(*project);
  if (args.has(kFlagSelect) || args.has(kFlagExclude)) {
    auto selection = dbt::resolve_select_exclude(run.project.inputs, args.get(kFlagSelect), args.get(kFlagExclude),
                                                 ctx.target_dir / "manifest.json");
    if (!selection) return std::unexpected(report(ctx, selection.error()));
    run.selection = std::move(*selection);
  }
  run.load_seconds = seconds_since(started);
  return run;
}

}  // namespace ods::cli
