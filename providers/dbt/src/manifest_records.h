#pragma once
// Compact records of the manifest entries ODS needs. Each manifest entry is converted to
// one of these as soon as it is parsed (manifest_entries.cc); the project inputs are
// assembled from them once the whole file is read (project_assembly.cc), because the
// macros, sources and tests a node refers to may come after it in the file.
#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "json_stream.h"
#include "ods/dbt/artifacts.h"
#include "ods/planner/fingerprint.h"
#include "ods/planner/inputs.h"
#include "ods/planner/jinja_purity.h"

namespace ods::dbt::internal {

// A model (ephemeral included), seed or snapshot.
struct NodeRecord {
  std::string id;
  std::string name;
  std::string resource_type;  // "model" | "seed" | "snapshot"
  std::string package_name;
  std::string materialized;
  bool full_refresh_configured = false;  // config.full_refresh set (not null): should_full_refresh() reads it
  bool ephemeral = false;
  std::string relation;
  std::string database, schema;
  std::string identifier;          // its alias, else its name
  bool default_placement = false;  // no custom database/schema configured
  std::vector<std::string> depends_nodes;
  std::vector<std::string> depends_macros;

  // Components known from the entry alone: scheme, sql, compiled_code, config, contract,
  // relation. file, macros and engine are added when the project is assembled.
  planner::Fingerprint fingerprint;
  bool needs_file = false;                  // seed, Python, impure Jinja or no raw code
  std::optional<std::string> file_content;  // "<checksum name>:<checksum>" when a content checksum exists
  std::string raw_digest;
  bool sql_normalised = false;
  std::vector<std::string> incomplete;
  std::vector<std::string> always_build;   // hooks that read the run context
  std::vector<LiteralHook> literal_hooks;  // those of them that read it only by literal name
  bool has_hooks = false;
  planner::FreshnessPolicy policy;
  // Why its compiled SQL can't be keyed from its own code (planner::compile_key_reads, or
  // "a Python model", "a seed", "no raw code"); nullopt when its own code allows a key, and
  // then what its Jinja reads beyond the parse: vars by name, macros it calls.
  std::optional<std::string> key_blocker;
  planner::CompileKeyReads key_reads;
};

// A data test or unit test: the nodes it reads and the digest of its definition.
struct CheckRecord {
  std::string id;
  std::vector<std::string> reads;
  std::vector<std::string> macros;
  std::string definition_digest;
};

struct MacroRecord {
  std::string name;
  std::string package_name;
  std::string sql_digest;
  std::vector<std::string> depends;
  std::optional<std::string> run_context_word;     // reads_run_context(macro_sql)
  std::optional<std::string> compile_impure_word;  // planner::compile_impure_word(macro_sql)
};

struct SourceRecord {
  std::string id;
  std::string name;  // "<source_name>.<table>"
  std::string relation;
  std::string database, schema, identifier;  // as the manifest has them
  bool has_loaded_at = false;                // loaded_at_field or loaded_at_query
};

struct ManifestRecords {
  ManifestMeta meta;
  std::vector<NodeRecord> nodes;
  std::vector<CheckRecord> checks;
  std::unordered_map<std::string, MacroRecord> macros;
  std::vector<SourceRecord> sources;
  std::vector<std::string> warnings;
};

// Config members that don't change what gets built (policy, governance and metadata),
// left out of the `config` component.
inline constexpr std::array<std::string_view, 7> kConfigExclusions = {"tags",  "meta",   "docs", "freshness",
                                                                      "group", "access", "state"};

// An entry's config, kept as raw text by the stream: the canonical text of the `config`
// component (without the members that don't change what gets built) and a DOM of the few
// members the conversion reads.
struct Config {  // NOLINT(bugprone-exception-escape): clang-tidy 16 blames nlohmann's noexcept moves
  bool present = false;
  std::string canonical;
  Json dom;
};

// The configs already converted while one artifact is read, by their raw text: dbt writes
// equal configs as equal text, and most nodes of a project share a few configs (a project's
// defaults per folder), so each distinct config is canonicalised once. The conversion is a
// pure function of the text, so a remembered one is the one that would be computed.
// Thread-safe; holds at most kMaxEntries configs (later ones are converted each time).
class ConfigMemo {
 public:
  static constexpr std::size_t kMaxEntries = 4096;
  // The config converted from exactly `raw`, or nullptr.
  [[nodiscard]] std::shared_ptr<const Config> find(std::string_view raw) const;
  void remember(std::string_view raw, const std::shared_ptr<const Config>& config);

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const Config>, Hash, std::equal_to<>> configs_;
};

// Entry conversions. `file` names the artifact in errors; `id` is the entry's key.
// Errors: "invalid_artifact" naming the field. Pure apart from the output record.
[[nodiscard]] Result<ManifestMeta> read_manifest_meta(const Json& metadata, std::string_view file);
// Appends a NodeRecord (model, seed, snapshot) or a CheckRecord (test); ignores other types.
// `raw` holds the entry's members as raw text (nodes are read without a DOM). `memo`
// (optional) shares converted configs between the entries of one artifact.
[[nodiscard]] Result<void> add_node_entry(const RawMembers& raw, const std::string& id, std::string_view file,
                                          ManifestRecords& out, ConfigMemo* memo = nullptr);
[[nodiscard]] Result<void> add_unit_test_entry(const Json& entry, const std::string& id, std::string_view file,
                                               ManifestRecords& out);
[[nodiscard]] Result<void> add_macro_entry(const Json& entry, const std::string& id, std::string_view file,
                                           ManifestRecords& out);
[[nodiscard]] Result<void> add_source_entry(const Json& entry, const std::string& id, std::string_view file,
                                            ManifestRecords& out);

struct SourcesJson;

// Turns the records into the project: fingerprints completed (file, macros, engine),
// ephemeral models inlined, hooks rule, checks digests, target identity, and the sources'
// data versions from `sources` (nullptr: no sources.json was given). Pure.
DbtProject assemble_project(ManifestRecords&& records, const ReadOptions& options, const SourcesJson* sources);

}  // namespace ods::dbt::internal
