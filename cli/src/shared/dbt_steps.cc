#include "dbt_steps.h"

#include <charconv>
#include <filesystem>
#include <iostream>
#include <limits>

#include "exit_codes.h"
#include "flag_names.h"
#include "ods/dbt/cli/dbt_binary.h"
#include "ods/dbt/cli/dbt_driver.h"
#include "ods/dbt/target_choice.h"

namespace ods::cli {

namespace {
constexpr std::size_t kMaxProbeParts = 16;
}  // namespace

void step(const CommandContext& ctx, const std::string& line) {
  if (ctx.format == "text")
    *ctx.out << "ods: " << line << "\n" << std::flush;
  else
    *ctx.err << "ods: " << line << "\n";
}

dbt::DbtInvocationOptions dbt_options(const ParsedArgs& args, const CommandContext& ctx) {
  dbt::DbtInvocationOptions options;
  options.dbt = args.has(kFlagDbt) ? args.get(kFlagDbt) : ctx.env.getenv("ODS_DBT");
  options.profiles_dir = args.get(kFlagProfilesDir);
  return options;
}

std::vector<std::string> target_path_flags(const ParsedArgs& args, const CommandContext& ctx) {
  if (!args.has(kFlagTargetPath)) return {};
  return {kFlagTargetPath, ctx.target_dir.string()};
}

int report_dbt_failure(const CommandContext& ctx, const std::string& what, const dbt::DbtCommandResult& r) {
  // dbt's error text starts with its exit code ("dbt failed with exit code 2."): said once.
  if (r.error_text.empty())
    *ctx.err << "ods: " << what << " failed (dbt exit code " << r.exit_code << ")\n";
  else
    *ctx.err << "ods: " << what << " failed:\n" << r.error_text << "\n";
  return kExitFailed;
}

Result<std::size_t> probe_parts_setting(const CommandContext& ctx) {
  const std::string value = ctx.env.getenv("ODS_PROBE_PARTS");
  if (value.empty()) return 1;
  std::size_t parts = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), parts);
  if (ec != std::errc{} || end != value.data() + value.size() || parts < 1 || parts > kMaxProbeParts)
    return fail("usage", "ODS_PROBE_PARTS is '" + value + "': it must be a whole number from 1 to " +
                             std::to_string(kMaxProbeParts) + " (how many dbt show calls the probe runs at once).");
  return parts;
}

Result<WarehouseOptions> warehouse_options_setting(const CommandContext& ctx) {
  WarehouseOptions options;
  const std::string limit = ctx.env.getenv("ODS_CONTENT_MAX_BYTES");
  if (limit == "unlimited") {
    options.content_max_bytes = std::numeric_limits<unsigned long long>::max();
  } else if (!limit.empty()) {
    unsigned long long bytes = 0;
    const auto [end, ec] = std::from_chars(limit.data(), limit.data() + limit.size(), bytes);
    if (ec != std::errc{} || end != limit.data() + limit.size())
      return fail("usage", "ODS_CONTENT_MAX_BYTES is '" + limit +
                               "': it must be a whole number of bytes or 'unlimited' (the largest source table whose "
                               "content PostgreSQL, DuckDB, Snowflake or BigQuery fingerprints by a scan).");
    options.content_max_bytes = bytes;
  }
  ODS_TRY(options.relation_identity,
          on_off_setting(ctx, "ODS_RELATION_IDENTITY",
                         "'on' (the default: a reused relation must be the one ODS built) or 'off' (its existence "
                         "only, for a warehouse copied or restored as a whole)"));
  ODS_TRY(options.evidence_cost,
          on_off_setting(ctx, "ODS_EVIDENCE_COST",
                         "'on' (the default: exact evidence that costs more than building what reads it is left "
                         "unread) or 'off' (every exact evidence is read, whatever it costs)"));
  // Unset: the tables above the content limit by their storage (on_off_setting reads unset as on).
  if (!ctx.env.getenv("ODS_DUCKDB_STORAGE").empty()) {
    bool every_table = false;
    ODS_TRY(every_table,
            on_off_setting(ctx, "ODS_DUCKDB_STORAGE",
                           "'on' (every DuckDB source table read by its storage identity where it proves something) "
                           "or 'off' (every one by content); unset, the tables above ODS_CONTENT_MAX_BYTES by their "
                           "storage"));
    options.duckdb_storage = every_table ? DuckDbStorage::every_table : DuckDbStorage::off;
  }
  const std::string hash = ctx.env.getenv("ODS_SNOWFLAKE_CONTENT_HASH");
  if (!hash.empty()) {
    const bool forbidden = hash.find_first_of(";\n\r") != std::string::npos || hash.find("--") != std::string::npos ||
                           hash.find("/*") != std::string::npos;
    if (forbidden || hash.size() > 500 || hash.find_first_not_of(' ') == std::string::npos)
      return fail("usage", "ODS_SNOWFLAKE_CONTENT_HASH is '" + hash +
                               "': it must be one SQL expression aggregating the rows (e.g. hash_agg(*)), at most "
                               "500 characters, without ';', comments or line breaks.");
    options.snowflake_content_hash = hash;
  }
  return options;
}

Result<NativeProbeSetting> native_probe_setting(const ParsedArgs& args, const CommandContext& ctx) {
  NativeProbeSetting out;
  ODS_TRY(out.enabled,
          on_off_setting(ctx, "ODS_NATIVE_PROBE",
                         "'on' (the default: PostgreSQL's probe over libpq, DuckDB's through its own "
                         "Python package, without a dbt process) or 'off' (every probe through dbt show)"));
  if (!out.enabled) return out;
  const auto getenv = [&ctx](const std::string& name) { return ctx.env.getenv ? ctx.env.getenv(name) : std::string(); };
  out.working_dir = ctx.project_dir;  // dbt runs there (DbtInvocation's cwd)
  if (auto binary = dbt::resolve_dbt_binary(dbt_options(args, ctx).dbt.string(), getenv); !binary)
    out.python = std::unexpected(std::string("dbt was not found"));
  else if (auto python = dbt::console_script_python(*binary))
    out.python = *python;
  else
    out.python =
        std::unexpected(std::string("dbt is not dbt-core's console script (the Python that runs it is not known)"));
  auto choice = dbt::choose_target(ctx.project_dir, ctx.target, args.get(kFlagProfilesDir), getenv);
  if (!choice)
    out.profile = std::unexpected(choice.error().message);
  else
    out.profile = dbt::read_profile_output(*choice, getenv);
  if (auto file = dbt::read_project_file(ctx.project_dir))
    out.project_file = std::move(*file);
  else
    out.project_file.quoting_unknown = file.error().message;
  return out;
}

GatheredEvidence probe_warehouse(const CommandContext& ctx, DbtSession& dbt, LoadedProject& project,
                                 const std::string& now, std::size_t parts, const WarehouseOptions& options,
                                 const std::map<std::string, std::string>& too_costly) {
  const ProbeRoute route = probe_route(project.adapter_type, options, dbt.may_hold_warehouse());
  std::string how = parts == 1 ? std::string("one dbt show call") : std::to_string(parts) + " dbt show calls at once";
  if (route.native)
    how = "native probe, no dbt process";
  else if (!route.why_not_native.empty())
    how += "; not the native probe: " + route.why_not_native;
  step(ctx, "probing " + std::to_string(project.inputs.sources.size()) + " sources and checking " +
                std::to_string(project.inputs.nodes.size()) + " relations (" + how + ")" +
                (too_costly.empty() ? ""
                                    : "; the content of " + std::to_string(too_costly.size()) +
                                          " source(s) is not fingerprinted: that took longer, when last read, than "
                                          "building what reads them (ODS_EVIDENCE_COST=off reads it)"));
  GatheredEvidence evidence = gather_evidence(dbt, project.adapter_type, ctx.target_dir.string(), project.inputs, now,
                                              parts, options, too_costly);
  for (const auto& w : evidence.warnings) *ctx.err << "ods: warning: " << w << "\n";
  return evidence;
}

}  // namespace ods::cli
