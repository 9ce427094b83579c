#include "dbt_steps.h"

#include <iostream>

#include "commands.h"

namespace ods::cli {

void step(const CommandContext& ctx, const std::string& line) {
  if (ctx.format == "text")
    *ctx.out << "ods: " << line << "\n" << std::flush;
  else
    *ctx.err << "ods: " << line << "\n";
}

DbtSettings dbt_settings(const ParsedArgs& args, const CommandContext& ctx) {
  DbtSettings s;
  s.binary = args.has("--dbt") ? args.get("--dbt") : ctx.env.getenv("ODS_DBT");
  s.profiles_dir = args.get("--profiles-dir");
  return s;
}

std::vector<std::string> target_path_flags(const ParsedArgs& args, const CommandContext& ctx) {
  if (!args.has("--target-path")) return {};
  return {"--target-path", ctx.target_dir.string()};
}

int report_dbt_failure(const CommandContext& ctx, const std::string& what, const dbt::DbtCommandResult& r) {
  *ctx.err << "ods: " << what << " failed (dbt exit code " << r.exit_code << ")";
  if (!r.error_text.empty()) *ctx.err << ":\n" << r.error_text;
  *ctx.err << "\n";
  return kExitFailed;
}

int compile_project(const CommandContext& ctx, DbtSession& dbt, const std::vector<std::string>& target_path) {
  step(ctx, "compiling the project (dbt compile)");
  std::vector<std::string> compile{"compile"};
  compile.insert(compile.end(), target_path.begin(), target_path.end());
  auto compiled = dbt.run(compile);
  if (!compiled) return report(ctx, compiled.error());
  if (compiled->interrupted) return report(ctx, {"interrupted", "interrupted while compiling; nothing recorded"});
  if (compiled->exit_code != 0) return report_dbt_failure(ctx, "dbt compile", *compiled);
  return kExitOk;
}

GatheredEvidence probe_warehouse(const CommandContext& ctx, DbtSession& dbt, LoadedProject& project,
                                 const std::string& now) {
  step(ctx, "probing " + std::to_string(project.inputs.sources.size()) + " sources and checking " +
                std::to_string(project.inputs.nodes.size()) + " relations (one dbt show call)");
  GatheredEvidence evidence = gather_evidence(dbt, project.adapter_type, ctx.target_dir.string(), project.inputs, now);
  for (const auto& w : evidence.warnings) *ctx.err << "ods: warning: " << w << "\n";
  return evidence;
}

}  // namespace ods::cli
