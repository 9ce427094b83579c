#pragma once
// The native DuckDB probe (issue 41 item 3, docs/warehouses.md "DuckDB", "Native probe"): a
// RelationProbe that answers a ProbeRequest on DuckDB exactly as the dbt show probe does through
// dbt-duckdb (ods/dbt/show_probe.h), without a dbt process. DuckDB's library can't be loaded
// into ods (the `duckdb` Python package's module needs libpython), so a small Python program
// (providers/duckdb/python/ods_duckdb_probe.py, embedded in ods) runs with the interpreter that
// runs dbt, imports `duckdb` only (the DuckDB dbt-duckdb runs: same interpreter, same
// site-packages, same file format), opens the profile's database read-only in the directory dbt
// runs in, walks the project's relations as the dbt show program does (listing, schema check,
// branches, only_if gates, skip lists, identity batches, max_rows, placeholders, `why` texts)
// in one transaction, and prints the answer the dbt show program prints
// (dbt::parse_probe_answer reads it). Measured start (import duckdb + connect): 0.1-0.2 s.
// Where it can differ from dbt, knowingly: it opens the file read-only (dbt-duckdb opens it
// read-write: a database another process writes is refused here, and dbt's process would
// checkpoint a write-ahead log at its exit where this one leaves it); values of a type other
// than text, boolean, integer, decimal, float or a list print as Python's str() (the statements
// ODS sends cast their columns to text).
// Errors: "probe_failed" naming what failed (the interpreter could not be started, duckdb could
// not be imported, the file could not be opened — "locked by another process" when a writer
// holds it —, a statement DuckDB refused, an answer that is not one); nothing is read then.
// Not thread-safe; one call at a time (the contract's). Starts one process per call.
#include <expected>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ods/contracts/project_relations.h"
#include "ods/contracts/relation_probe.h"
#include "ods/process/child_process.h"

namespace ods::duckdb {

// The database as dbt-duckdb opens it, from the profile's output.
struct NativeDatabase {
  std::string path;  // the profile's `path` (a relative one is taken from where dbt runs)
  // ProbeReport::target: "schema", "database", "name", "type" as dbt's target says them
  std::map<std::string, std::string> target;
};

// A dbt-duckdb profile output's fields (rendered: ods/dbt/profile_output.h; `structured`: its
// fields that are maps or lists) as the database the native probe opens. Read: `path`,
// `database` (dbt-duckdb's default, the file's name without its extension), `schema` (default
// "main"). Ignored, since they don't change what a probe reads: threads, keep_open,
// external_root, disable_transactions, retries, module_paths. Refused, with the reason (the
// caller leaves the probe to dbt): a type other than duckdb; no path, `:memory:`, a path with a
// scheme (MotherDuck's md:, ducklake:, s3:// ...) or with '?' or '#'; a `database` other than the
// path's (dbt refuses it too); is_ducklake; and any other field (attach, extensions, plugins,
// settings, config_options, secrets, filesystems, remote, use_credential_provider, or a key ODS
// does not know), since what dbt-duckdb would do with it on connecting is not done here. Pure.
[[nodiscard]] std::expected<NativeDatabase, std::string> database_from_profile(
    const std::string& target_name, const std::map<std::string, std::string>& fields,
    const std::vector<std::string>& structured);

// Where the program runs: dbt's interpreter (ods/dbt/cli/dbt_driver.h, console_script_python)
// and the directory dbt runs in (the project's).
struct NativeProcess {
  std::filesystem::path python;
  std::filesystem::path working_dir;
};

// `launcher` (not owned; it must outlive the probe) starts the program: the CLI's, which
// withholds ODS's secrets from every child.
std::unique_ptr<contracts::RelationProbe> make_native_duckdb_probe(process::ProcessLauncher& launcher,
                                                                   NativeProcess process, NativeDatabase database,
                                                                   contracts::ProjectRelations relations);

// The program's source, as ods embeds it (exposed for tests).
std::string_view native_probe_source();

}  // namespace ods::duckdb
