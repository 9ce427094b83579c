#pragma once
// The warehouse half of a command that can build: one probe call (dbt show, or on PostgreSQL
// the native probe over libpq: issue 41 item 3) for every source's data version and every
// relation's existence, then the planner's choice of version per source (ADR-0022). Only this
// file maps an adapter type to a ChangeProvider and to a probe without dbt.
#include <expected>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dbt_session.h"
#include "ods/dbt/artifacts.h"
#include "ods/dbt/profile_output.h"
#include "ods/dbt/project_file.h"
#include "ods/planner/inputs.h"
#include "ods/run/probe_details.h"

namespace ods::cli {

// PostgreSQL's content limit when the user sets none: a source of at most this many bytes
// (pg_table_size) is fingerprinted by content, a larger one read by its statistics. The content
// scan runs at roughly 60-190 MB/s here (docs/warehouses.md, "PostgreSQL"), so this keeps one
// source's scan near a second; bench/data_scale.sh measures what it costs against dbt build.
inline constexpr unsigned long long kDefaultContentMaxBytes = 128ULL * 1024 * 1024;

// DuckDB's content limit when the user sets none: a source table whose blocks take at most this
// many bytes is fingerprinted by content, a larger one read by its storage identity (exact too).
// DuckDB's blocks are compressed (bench/data_scale.sh's 10 GB of PostgreSQL rows take 0.35 GB),
// and its content fingerprint read them at roughly 10-60 MB of blocks a second here (the lower
// under load), where the storage identity costs 0.1-0.7 s whatever the size (docs/warehouses.md,
// "DuckDB"). At 32 MiB, a 31 MiB source's fingerprint took 2.9 s under load, more than building
// its readers, so the cost rule built them on every run (docs/benchmarks.md, "Data at scale:
// DuckDB native probe and storage by default"); at 16 MiB it is read by storage.
inline constexpr unsigned long long kDefaultDuckDbContentMaxBytes = 16ULL * 1024 * 1024;

// How DuckDB source tables are read ($ODS_DUCKDB_STORAGE): by their storage identity above the
// content limit (the default), every table by its storage identity ("on"), or by content ("off").
enum class DuckDbStorage { above_content_limit, every_table, off };

// What a probe without a dbt process needs (native_probe_setting, dbt_steps.h), taken by the
// warehouses that have one (PostgreSQL: ods/postgres/native_probe.h; DuckDB:
// ods/duckdb/native_probe.h). Anything missing or in
// doubt leaves the probe to dbt show, and the probe's step line says why (rule 2).
struct NativeProbeSetting {
  bool enabled = false;  // $ODS_NATIVE_PROBE is not "off" (and a command set it: `ods pod` doesn't)
  // The profile output dbt connects with (dbt::read_profile_output, the target as dbt chooses
  // it), or why it can't be read before dbt runs. Holds the password: never logged.
  std::expected<dbt::ProfileOutput, std::string> profile = std::unexpected(std::string("the profile was not read"));
  dbt::ProjectFile project_file;  // dbt_project.yml's quoting (quoting_unknown: why it can't be read)
  // The relations of the project as the loader read them from the manifest; null: not loaded.
  std::shared_ptr<const dbt::DbtProject> project;
  // DuckDB's native probe runs with the Python that runs dbt (dbt-core's console script names
  // it), in the directory dbt runs in; else why not.
  std::expected<std::filesystem::path, std::string> python = std::unexpected(std::string("dbt was not looked for"));
  std::filesystem::path working_dir;
};

// What the user set for the evidence of the warehouses that can read metadata instead of content
// (PostgreSQL, Snowflake, BigQuery): $ODS_CONTENT_MAX_BYTES and $ODS_SNOWFLAKE_CONTENT_HASH
// (warehouse_options_setting, dbt_steps.h).
struct WarehouseOptions {
  // Sources at most this big: content fingerprint. Unset: PostgreSQL takes
  // kDefaultContentMaxBytes, Snowflake and BigQuery scan nothing (a scan costs money there).
  std::optional<unsigned long long> content_max_bytes;
  std::string snowflake_content_hash;  // empty: hash_agg(*)
  // $ODS_RELATION_IDENTITY: false ("off") reads and records no relation identity, so a reuse
  // checks its relation's existence only (a warehouse copied or restored as a whole, whose
  // every identity differs from the record; docs/warehouses.md, "Relation identity").
  bool relation_identity = true;
  // $ODS_EVIDENCE_COST: false ("off") reads every exact evidence whatever it costs; true (the
  // default) leaves unread the exact evidence that took longer, when last read, than building
  // what reads it (run/evidence_cost.h; docs/warehouses.md, "Evidence bounded by cost").
  bool evidence_cost = true;
  // $ODS_DUCKDB_STORAGE (docs/warehouses.md, "DuckDB storage identity"): unset, tables above the
  // content limit by their storage identity where it proves something, the others by content;
  // "on" every table by its storage identity where it proves something; "off" every one by content.
  DuckDbStorage duckdb_storage = DuckDbStorage::above_content_limit;
  NativeProbeSetting native;  // $ODS_NATIVE_PROBE and what a probe without dbt reads
};

// Which probe a call reads the warehouse with: `native` (no dbt process; one call, whatever the
// probe parts) or dbt show; `why_not_native` says why not, where the warehouse has a native probe
// ("" where it has none). A native probe that fails falls back to dbt show for that call, with a
// warning saying why. `may_hold_warehouse`: the command's dbt process is alive and may hold the
// warehouse open (DbtSession::may_hold_warehouse): DuckDB's file is then read through it.
struct ProbeRoute {
  bool native = false;
  std::string why_not_native;
};
ProbeRoute probe_route(const std::string& adapter_type, const WarehouseOptions& options,
                       bool may_hold_warehouse = false);

// "native" or "dbt show".
inline constexpr const char* kProbeNative = "native";
inline constexpr const char* kProbeDbtShow = "dbt show";

struct GatheredEvidence {
  std::optional<std::map<std::string, bool>> relations_exist;  // nullopt only when nothing could be asked
  std::map<std::string, std::string> relation_kinds;           // node id -> kind as listed (ProbeReport)
  // Node id -> its relation's identity (ProbeReport::relation_identities); nullopt when the
  // adapter gives none (docs/warehouses.md, "Relation identity"): the planner then compares none.
  std::optional<std::map<std::string, std::string>> relation_identities;
  std::map<std::string, double> probe_seconds;  // source id -> statement latency
  // The cost rule's record (RunDetails::exact_evidence_*): source id -> its statements' seconds,
  // for the sources read by an exact version; and the sources whose fingerprint was left unread.
  std::map<std::string, double> exact_seconds;
  std::vector<std::string> exact_skipped;
  double call_seconds = 0;
  std::string observed_at;
  std::vector<std::string> warnings;      // e.g. the probe failed, quoting dbt
  std::string strategy;                   // the ChangeProvider's origin, or "" when none applies
  std::string probe_via = kProbeDbtShow;  // which probe answered: kProbeNative or kProbeDbtShow
  // The target's identity as the probe read it (contracts::ProbeReport::target): schema,
  // database, name, type; empty when the probe failed.
  std::map<std::string, std::string> target;
};

// Probes (natively where probe_route says so, else through `dbt`) and applies the version choice to `inputs.sources` in
// place. Never fails: a failed probe makes every source unknown and every relation unverified (a warning says why), so
// readers build (rule 2). The probe's own artifacts go to <target_dir>/ods-probe, so the build's stay as they are.
// probe_parts > 1: the probe in that many parts at once (dbt::make_parallel_show_probe), part
// i+1 through a sibling session with artifacts in <target_dir>/ods-probe-<i+1>; only for
// targets whose connections are independent (see probe_parts_setting, dbt_steps.h).
// `options`: the content limit and hash expression for the adapters that take them.
// `too_costly`: source id -> why its content fingerprint is left unread (sources_too_costly,
// evidence_budget.h): the probe scans none of them, and each carries why.
GatheredEvidence gather_evidence(DbtSession& dbt, const std::string& adapter_type, const std::string& target_dir,
                                 planner::ProjectInputs& inputs, const std::string& now, std::size_t probe_parts = 1,
                                 const WarehouseOptions& options = {},
                                 const std::map<std::string, std::string>& too_costly = {});

// What the probe measured, as the run's ledger entry keeps it and a pod sends it.
run::ProbeDetails probe_details_of(const GatheredEvidence& evidence);

// Whether this adapter's relations can be content-fingerprinted (a ChangeProvider reads it).
bool content_measurable(const std::string& adapter_type);
// Whether that content also fingerprints the relations' columns (ChangeProvider 0.4), so that
// early cutoff may follow a code change.
bool content_covers_schema(const std::string& adapter_type);

// Whether this adapter's warehouse drops a view (or materialized view) when a relation it reads
// is rebuilt by dbt (PostgreSQL: views bound by oid, the old relation dropped with CASCADE), so
// such a view must build whenever a parent that replaces its relation builds
// (planner::NodeInput::dropped_when_parent_replaced). False where views resolve by name.
bool rebuild_drops_bound_views(const std::string& adapter_type);

// Whether this adapter's relations have an identity the probe reads (relation_identity_statements).
bool relation_identity_readable(const std::string& adapter_type);

// What a build left in the warehouse, read right after it in one dbt show call: the content of
// `content_nodes` (as measure_contents) and, where the adapter gives one, every existing node
// relation's identity (snapshot 1.5 records the built nodes'). A failed call reads neither and
// says why in `warnings`. Never fails.
struct BuiltRelations {
  std::map<std::string, planner::DataVersion> contents;
  std::map<std::string, double> content_seconds;  // node id -> its content statements' seconds (answered ones)
  std::map<std::string, std::string> identities;
};
BuiltRelations read_built_relations(DbtSession& dbt, const std::string& adapter_type, const WarehouseOptions& options,
                                    const std::string& target_dir, const std::vector<std::string>& content_nodes,
                                    bool identities, const std::string& now, std::vector<std::string>& warnings);

// Early cutoff: the content of each of `nodes`' relations, measured now with the statements
// the adapter's ChangeProvider runs for content (content_request), in one dbt show call (artifacts under
// <target_dir>/ods-probe). A node it could not measure is absent (its readers then never cut
// off on it); a failed call measures none and says why in `warnings`. Never fails.
std::map<std::string, planner::DataVersion> measure_contents(
    DbtSession& dbt, const std::string& adapter_type, const WarehouseOptions& options, const std::string& target_dir,
    const std::vector<std::string>& nodes, const std::string& now, std::vector<std::string>& warnings);

}  // namespace ods::cli
