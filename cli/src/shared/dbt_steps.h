#pragma once
// The steps of the commands that run dbt (`ods state run`, `ods state test`, `ods pod`): step
// lines, the dbt settings from the flags, `dbt compile`, the probe, and dbt's failure text.
// prepare_run (run_preparation.h) takes them in the order every such command does.
#include <string>
#include <vector>

#include "cli_args.h"
#include "context.h"
#include "dbt_session.h"
#include "evidence_gathering.h"
#include "project_loader.h"

namespace ods::cli {

// "ods: <line>" on stdout in text format, on stderr in json format (stdout holds the document).
void step(const CommandContext& ctx, const std::string& line);

// How the session runs dbt (make_dbt_session): --dbt (else $ODS_DBT) and --profiles-dir.
dbt::DbtInvocationOptions dbt_options(const ParsedArgs& args, const CommandContext& ctx);

// `--target-path DIR` when the flag was given (dbt's own default otherwise), for every dbt call
// whose artifacts ODS reads.
std::vector<std::string> target_path_flags(const ParsedArgs& args, const CommandContext& ctx);

// Prints "ods: <what> failed (dbt exit code N)" and dbt's error text; returns kExitFailed.
int report_dbt_failure(const CommandContext& ctx, const std::string& what, const dbt::DbtCommandResult& r);

// `dbt compile`: compile_deferral.h.

// `dbt deps` and the packages cache: package_install.h.

// How many parts the probe runs in at once: $ODS_PROBE_PARTS, 1 (one dbt show call) when unset.
// More than 1 only for targets whose connections are independent (dbt-spark's thrift, http or
// odbc method, Databricks, PostgreSQL); the probe refuses dbt-spark's session mode.
// Errors: "usage" when the value is not a whole number from 1 to 16 (naming the variable).
[[nodiscard]] Result<std::size_t> probe_parts_setting(const CommandContext& ctx);

// The content limit and hash expression of the warehouses that read metadata (WarehouseOptions):
// $ODS_CONTENT_MAX_BYTES (a whole number of bytes; unset: no source is fingerprinted by content on
// Snowflake and BigQuery) and $ODS_SNOWFLAKE_CONTENT_HASH (an aggregate expression over the rows;
// unset: hash_agg(*)), $ODS_RELATION_IDENTITY and $ODS_EVIDENCE_COST ("on", the default, or
// "off"). Errors: "usage" naming the variable when the number is not a whole number, the
// expression is empty, longer than 500 characters, or holds a ';', a comment or a line break, or
// an on/off setting is neither.
[[nodiscard]] Result<WarehouseOptions> warehouse_options_setting(const CommandContext& ctx);

// What a probe without a dbt process needs (NativeProbeSetting): $ODS_NATIVE_PROBE ("on", the
// default, or "off": every probe through dbt show), the profile output dbt would connect with
// (dbt::choose_target as dbt chooses the target: --target, $DBT_TARGET, --profiles-dir,
// $DBT_PROFILES_DIR; then dbt::read_profile_output, or why it can't be read) and dbt_project.yml's
// quoting. The project's relations are set once it is loaded (prepare_run). Errors: "usage"
// naming the variable when it is neither "on" nor "off".
[[nodiscard]] Result<NativeProbeSetting> native_probe_setting(const ParsedArgs& args, const CommandContext& ctx);

// The probe (natively where probe_route says so, else one dbt show call or `parts` at once) with
// a step line naming which; its warnings are printed
// on stderr. Applies each source's chosen version to project.inputs (see gather_evidence; the
// step line says how many sources' fingerprints `too_costly` leaves unread).
GatheredEvidence probe_warehouse(const CommandContext& ctx, DbtSession& dbt, LoadedProject& project,
                                 const std::string& now, std::size_t parts = 1, const WarehouseOptions& options = {},
                                 const std::map<std::string, std::string>& too_costly = {});

}  // namespace ods::cli
