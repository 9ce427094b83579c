#pragma once
// dbt artifacts -> planner inputs (ADR-0013, scheme dbt/2).
//
// Reads `manifest.json` (schema v12 only) as a stream: one entry of `nodes`, `sources`,
// `macros` and `unit_tests` at a time is turned into a compact record and discarded, so
// a 50k-node manifest parses in a fraction of its size in memory. Optionally reads
// `sources.json` (v3) for the sources' data versions.
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ods/base/result.h"
#include "ods/planner/hook_reads.h"
#include "ods/planner/inputs.h"

namespace ods::dbt {

inline constexpr std::string_view kManifestSchemaV12 = "https://schemas.getdbt.com/dbt/manifest/v12.json";
inline constexpr std::string_view kSourcesSchemaV3 = "https://schemas.getdbt.com/dbt/sources/v3.json";

// Where the artifacts are. `sources` is optional: without it no source has a data version.
struct ArtifactPaths {
  std::filesystem::path manifest;
  std::optional<std::filesystem::path> sources;
  // The nodes a `dbt compile` that wrote no manifest compiled, as the ods dbt driver hands them
  // over (ods-write-compiled: {"ods_compiled_nodes": 1, "nodes": {id: node as manifest.json
  // writes it}}), read beside `manifest` (the parse's): each stands in for the manifest's entry
  // of the same id, so the project read is the one the compile's manifest.json gives.
  std::optional<std::filesystem::path> compiled_nodes{};

  // `<project_dir>/target/manifest.json`, plus `target/sources.json` when that file exists.
  static ArtifactPaths in_project(const std::filesystem::path& project_dir);
};

struct ReadOptions {
  std::string target;  // the dbt target name the caller used ("" when not given)
  // Called on the reading thread with metadata.project_name once manifest.json and
  // sources.json have been read and accepted, just before the project is assembled (which
  // cannot fail): lets the caller start work that needs the project's name, e.g. reading the
  // recorded state while the project is assembled. Not called when reading fails.
  std::function<void(const std::string& project_name)> before_assembly;
  // dbt_project.yml's vars as dbt resolves them for the root project's nodes without --vars
  // (ODS passes none): name -> value as written, nullopt for a name dbt may resolve otherwise
  // (defined under a package's block, a list or map, Jinja). Absent: not read, and then no node
  // that reads a var has a compile key. With them, the SHA-256 of dbt_project.yml's text (a var
  // written `true` and one written "true" read alike above, render differently): both enter the
  // key of a node that reads a var.
  std::optional<std::map<std::string, std::optional<std::string>>> project_vars{};
  std::string project_file_digest{};
};

// The `incomplete` entry of a SQL model or snapshot the manifest holds no compiled SQL for.
inline constexpr std::string_view kNoCompiledSql = "no compiled SQL: run dbt compile";

// For a SQL node this run did not compile (its `incomplete` holds kNoCompiledSql) whose compile
// key equals the one recorded with `recorded_sql` (the `sql` component run `run_id` recorded):
// takes that component, drops the kNoCompiledSql entry and sets sql_from_run (docs/compile-key.md).
// Returns false and changes nothing when the node has compiled SQL of its own (or no such entry).
bool take_recorded_sql(planner::NodeInput& node, const std::string& recorded_sql, const std::string& run_id);

// The manifest's `metadata`, as far as ODS uses it.
struct ManifestMeta {
  std::string schema_version;  // metadata.dbt_schema_version
  std::string dbt_version;
  std::string adapter_type;
  std::string project_name;
  std::string invocation_id;
  std::string generated_at;
};

// A hook that reads the run context only by literal name (planner::literal_context_reads):
// its node's always_build holds `always_build` for it until the caller fingerprints `reads`
// (issue #14: the CLI, with a digest key, replaces that entry by keyed-digest components).
struct LiteralHook {
  std::string hook;          // "pre-hook 1", "post-hook 2"
  std::string always_build;  // the node's always_build entry for this hook, exactly
  std::vector<planner::ContextRead> reads;
};

// Where a source's or node's relation is, as dbt's graph names it: the manifest's database and
// schema, and a source's identifier or a node's alias (else its name). What a probe without a
// dbt process reads (issue 41 item 3, ods/postgres/native_probe.h).
struct RelationPlace {
  std::string id;
  std::string database;
  std::string schema;
  std::string identifier;
};

// Everything the dbt provider read: the planner's inputs plus what only the provider
// needs later (mapping test results of run_results.json to the nodes they check).
struct DbtProject {
  planner::ProjectInputs inputs;
  ManifestMeta meta;
  // Planned node id or source id -> ids of the data tests and unit tests that read it
  // (sorted). Nodes and sources without checks are absent.
  std::map<std::string, std::vector<std::string>> tests_of;
  // Planned node id -> its hooks that read the run context only by literal name. A hook that
  // reads it any other way is not here: its always_build entry stays.
  std::map<std::string, std::vector<LiteralHook>> literal_hooks;
  // Planned model ids materialized 'incremental' (sorted): their compiled code depends on
  // whether their relation exists when dbt compiles them (is_incremental(); incremental_recompile.h).
  std::vector<std::string> incremental_models;
  // Planned model ids materialized 'view' or 'materialized_view' (sorted): where the warehouse
  // binds a view to the relations it reads, rebuilding one of those drops it
  // (planner::NodeInput::dropped_when_parent_replaced, set by the caller that knows the warehouse).
  std::vector<std::string> view_models;
  // Every source's relation, and every planned node's (models that are not ephemeral, seeds,
  // snapshots), in manifest order.
  std::vector<RelationPlace> source_places;
  std::vector<RelationPlace> node_places;
};

// Reads only manifest.json's `metadata` (the read stops there: dbt writes it first), e.g. to
// learn which dbt invocation wrote the manifest now on disk without reading its nodes again.
// Errors: "missing_artifact" (the file cannot be opened), "invalid_artifact" (malformed JSON
// before or in the metadata, or no metadata).
[[nodiscard]] Result<ManifestMeta> read_manifest_metadata(const std::filesystem::path& manifest);

// Reads the manifest (and sources.json when `paths.sources` is set) into a DbtProject.
// Success: one NodeInput per model (ephemeral models excluded: inlined), seed and
// snapshot, in manifest order; one SourceInput per source.
// Errors (nothing partial is returned):
//   "missing_artifact"   a file cannot be opened (names the file and the OS reason);
//   "unsupported_schema" metadata.dbt_schema_version is not manifest v12 / sources v3
//                        (names the file and the version found);
//   "invalid_artifact"   not JSON, or a field of the wrong type (names file and field path,
//                        also of `paths.compiled_nodes`; a compiled node the manifest lacks),
//                        e.g. "manifest.json: nodes.model.shop.orders.checksum: expected an object");
//   "no_project_name"    metadata.project_name is missing or empty.
// Thread-safe (no shared state); reads the files, writes nothing.
[[nodiscard]] Result<DbtProject> read_dbt_project(const ArtifactPaths& paths, const ReadOptions& options);

// read_dbt_project(...).inputs. Same contract.
[[nodiscard]] Result<planner::ProjectInputs> read_project_inputs(const ArtifactPaths& paths,
                                                                 const ReadOptions& options);
// read_project_inputs(ArtifactPaths::in_project(project_dir), options).
[[nodiscard]] Result<planner::ProjectInputs> read_project_inputs(const std::filesystem::path& project_dir,
                                                                 const ReadOptions& options);

}  // namespace ods::dbt
