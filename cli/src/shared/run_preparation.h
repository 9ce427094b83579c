#pragma once
// The front half of every command that runs dbt to build or test (`ods state run`, `ods state
// test`, `ods pod`), written once: the probe setting, a dbt session, `dbt compile`, the project
// loaded, the --select/--exclude/--selector selection resolved (by dbt: dbt_selection.h); then, when the command is
// ready for it (run and test open the state store first), the probe of the warehouse.
#include <cstddef>
#include <expected>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli_args.h"
#include "compile_deferral.h"
#include "context.h"
#include "dbt_selection.h"
#include "dbt_session.h"
#include "evidence_gathering.h"
#include "keyed_compile.h"
#include "parse_fast_path.h"
#include "project_loader.h"

namespace ods::cli {

struct PreparedRun {
  std::unique_ptr<DbtSession> session;  // every dbt call of the command; uses the context it was made with
  // `--target-path DIR` when the flag was given, else empty: for every dbt call whose artifacts ODS reads.
  std::vector<std::string> target_path;
  std::size_t probe_parts = 1;     // $ODS_PROBE_PARTS (probe_parts_setting)
  WarehouseOptions warehouse;      // $ODS_CONTENT_MAX_BYTES, $ODS_SNOWFLAKE_CONTENT_HASH (warehouse_options_setting)
  LoadedProject project;           // read after `dbt compile`; the probe updates its sources' versions
  std::filesystem::path manifest;  // the manifest.json `project` was read from (parse_reuse.h)
  // The nodes and checks dbt selects with --select, --exclude, --selector; nullopt when none was given.
  std::optional<dbt::ResolvedSelection> selection;
  // The nodes dbt compile stopped on and left to dbt build (CompileDeferral::until_build);
  // settle_compiles() marks them after the probe, or fails the command.
  std::vector<DeferredCompile> deferred_compiles;
  double compile_seconds = 0;  // `dbt parse` and `dbt compile` (not the reads of the project)
  std::size_t sql_taken = 0;   // nodes whose recorded `sql` component stood (compile key unchanged)
  double load_seconds = 0;     // reading the project and resolving the selection
  double probe_seconds = 0;    // probe(); 0 until it ran
  // Source id -> why its content fingerprint is left unread by probe() (sources_too_costly,
  // evidence_budget.h); set by the command that has the ledger, before probe(). Empty: all read.
  std::map<std::string, std::string> too_costly_sources;
  // --write-manifest: dbt compile writes target/manifest.json and ODS reads it, as dbt does. Otherwise
  // (one parse in the ods dbt driver) the compile of the changed nodes writes none and the driver hands
  // over the nodes it compiled (compiled_nodes_file), read beside the parse's manifest.
  bool write_manifest = false;
  ParseFastPathSetting parse_fast_path;  // $ODS_PARSE_FAST_PATH and what it reads (parse_fast_path_setting)
  // The compile keys settle_compiles cleared since an incremental model's relation was absent or not
  // a table (confirm_incremental_keys' set_aside): node id -> key, for record_wave's recompile.
  std::map<std::string, std::string> incremental_keys_set_aside;
  // The parse's fast path (parse_reuse.h): "taken" when no dbt started to parse, else why not;
  // "" when the command did not consider it (no recorded state, --compile all).
  std::string parse_fast_path_outcome;

  // The probe (probe_warehouse: a step line, its warnings on ctx.err) through `session`, with
  // each source's chosen version applied to project.inputs. Never fails (a failed probe leaves
  // every source unknown and says why in the warnings). Then the hooks that read the target's
  // identity are fingerprinted with what the probe read (fingerprint_target_reads).
  // `now`: ISO-8601 UTC. Sets probe_seconds.
  GatheredEvidence probe(const CommandContext& ctx, const std::string& now);

  // After probe(): settle_deferred_compiles over deferred_compiles and `project` (kExitOk when
  // there are none), with `evidence` the probe's; then confirm_incremental_keys against it (a
  // step line names the nodes whose recorded SQL was taken back).
  int settle_compiles(const CommandContext& ctx, const GatheredEvidence& evidence);
};

// In this order: the selection's refused methods (refuse_foreign_selection: before any dbt call), $ODS_PROBE_PARTS and
// the warehouse options, the dbt session (dbt_options: --dbt, else $ODS_DBT, and
// --profiles-dir), with `packages` the project's declared packages installed (install_packages: `dbt deps`, for `ods
// pod`, whose checkout has none; from the packages cache --packages-cache, else $ODS_PACKAGES_CACHE, when set), `dbt
// compile` with a step line (compile_project: with `deferral` until_build, the nodes whose compile waits for upstream
// builds are left to dbt build, in deferred_compiles), the project loaded (ProjectUse::plan_and_record),
// --select,
// --exclude and --selector resolved by one `dbt ls` on the session's parse (resolve_selection). Returns the prepared
// run, or the process exit code after the reason was printed on ctx.err: kExitUsage for a refused selector, a bad
// $ODS_PROBE_PARTS, warehouse option or a selection dbt refuses or that selects nothing, kExitFailed when dbt deps or
// dbt compile failed or could not start or the project could not be read, kExitFailed for an interrupted compile. `ctx`
// must outlive the result (its session refers to it). Not thread-safe.
enum class DeclaredPackages { leave, install };
// Where the ods dbt driver hands over the nodes of a compile that wrote no manifest:
// <target-dir>/ods-parse/compiled_nodes.json (beside the parse's copy, parse_reuse.h).
std::filesystem::path compiled_nodes_file(const CommandContext& ctx);
// With `recorded` (ods state run) and compile_scope_setting() "changed": `dbt parse` first
// (parse_project: no manifest written when the parse changed nothing), the parsed project read, `recorded` asked for
// the state it continues, and dbt compile only for the nodes plan_compile() does not let stand (none: no compile at
// all); the others take their recorded `sql` (apply_recorded_sql). When the session keeps one
// parse (DbtSession::one_parse) and --write-manifest is not given, that compile runs with
// dbt::kDriverNoManifest and the project is read from the parse's manifest with the compiled nodes
// the driver handed over (compiled_nodes_file) standing in for its entries. Its errors are reported (kExitFailed;
// kExitUsage for a bad --compile or $ODS_COMPILE).
[[nodiscard]] std::expected<PreparedRun, int> prepare_run(const ParsedArgs& args, const CommandContext& ctx,
                                                          DeclaredPackages packages = DeclaredPackages::leave,
                                                          CompileDeferral deferral = CompileDeferral::never,
                                                          const RecordedSnapshot& recorded = {});

}  // namespace ods::cli
