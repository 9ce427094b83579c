// read_dbt_project: streams manifest.json into records, reads sources.json, assembles.
#include "ods/dbt/artifacts.h"

#include <algorithm>
#include <any>
#include <array>
#include <iterator>
#include <optional>

#include "compiled_overlay.h"
#include "json_access.h"
#include "json_stream.h"
#include "manifest_records.h"
#include "mapped_file.h"
#include "ods/base/result.h"
#include "sources_json.h"
#include "threaded_sink.h"

namespace ods::dbt {
namespace {

using internal::Json;
using internal::Keep;
using internal::SectionMode;

enum Section : std::size_t { metadata_section, nodes_section, sources_section, macros_section, unit_tests_section };
constexpr std::array<internal::SectionSpec, 5> kSections = {{{"metadata", SectionMode::whole},
                                                             {"nodes", SectionMode::entry_map},
                                                             {"sources", SectionMode::entry_map},
                                                             {"macros", SectionMode::entry_map},
                                                             {"unit_tests", SectionMode::entry_map}}};

bool one_of(std::string_view key, std::initializer_list<std::string_view> keys) {
  for (const auto k : keys) {
    if (k == key) return true;
  }
  return false;
}

// Builds ManifestRecords from the stream. Conversion errors found before the metadata
// are held back: a manifest of another schema version is refused as such, not as malformed.
class ManifestSink final : public internal::PreparingSink {
 public:
  // `overlay` (may be null; must outlive the sink): compiled nodes that stand in for the
  // manifest's entries of the same ids.
  ManifestSink(std::string file, const internal::CompiledOverlay* overlay)
      : file_(std::move(file)), overlay_(overlay) {}

  Keep keep_key(std::size_t section, const internal::EntrySoFar& partial, std::string_view key) const override {
    switch (section) {
      case nodes_section:
        return internal::node_member_kept(partial, key);
      case sources_section:
        return build_if(one_of(key, {"name", "source_name", "database", "schema", "identifier", "relation_name",
                                     "loaded_at_field", "loaded_at_query", "config"}));
      case macros_section:
        return build_if(one_of(key, {"name", "package_name", "macro_sql", "depends_on"}));
      case unit_tests_section:
        return build_if(
            one_of(key, {"model", "given", "expect", "overrides", "config", "depends_on", "version", "versions"}));
      default:
        return Keep::build;
    }
  }

  static Keep build_if(bool keep) { return keep ? Keep::build : Keep::skip; }

  // The members node `id` is read from: the overlay's when it has the node, else the manifest's.
  const internal::RawMembers& node_members(const std::string& id, const internal::RawMembers& raw) const {
    const internal::RawMembers* compiled = overlay_ == nullptr ? nullptr : overlay_->find(id);
    return compiled == nullptr ? raw : *compiled;
  }

  bool on_value(std::size_t /*section*/, Json&& metadata) override {
    auto meta = internal::read_manifest_meta(metadata, file_);
    if (!meta) return stop(std::move(meta.error()));
    if (meta->schema_version != kManifestSchemaV12) {
      const std::string found =
          meta->schema_version.empty() ? std::string("(none)") : "\"" + meta->schema_version + "\"";
      const std::string writer =
          meta->dbt_version.empty() ? std::string() : " (written by dbt " + meta->dbt_version + ")";
      return stop(Error{"unsupported_schema", file_ + ": dbt_schema_version " + found + writer +
                                                  " is not supported; ODS reads manifest v12 (" +
                                                  std::string(kManifestSchemaV12) +
                                                  "), which dbt-core 1.8 to 1.12 write (the supported range)"});
    }
    records_.meta = std::move(*meta);
    metadata_ok_ = true;
    if (deferred_) return stop(std::move(*deferred_));
    return true;
  }

  // A node's conversion (the costly part: canonical JSON, hashing, SQL normalisation) into
  // records of its own, appended in stream order by on_prepared.
  struct PreparedNode {
    internal::ManifestRecords records;
    Result<void> added;
  };

  std::any prepare(std::size_t section, const std::string& id, const Json& /*entry*/,
                   const internal::RawMembers& raw) const override {
    if (section != nodes_section) return {};
    PreparedNode node;
    node.added = internal::add_node_entry(node_members(id, raw), id, file_, node.records, &config_memo_);
    return node;
  }

  bool on_prepared(std::size_t section, std::string&& id, Json&& entry, const internal::RawMembers& raw,
                   std::any&& prepared) override {
    if (section != nodes_section) return on_entry(section, std::move(id), std::move(entry), raw);
    if (deferred_) return true;
    if (overlay_ != nullptr && overlay_->find(id) != nullptr) ++overlaid_;
    auto& node = std::any_cast<PreparedNode&>(prepared);
    if (node.added) append(std::move(node.records));
    return added_or_stop(std::move(node.added));
  }

  bool on_entry(std::size_t section, std::string&& id, Json&& entry, const internal::RawMembers& raw) override {
    if (deferred_) return true;
    Result<void> added;
    switch (section) {
      case nodes_section:
        if (overlay_ != nullptr && overlay_->find(id) != nullptr) ++overlaid_;
        added = internal::add_node_entry(node_members(id, raw), id, file_, records_, &config_memo_);
        break;
      case sources_section:
        added = internal::add_source_entry(entry, id, file_, records_);
        break;
      case macros_section:
        added = internal::add_macro_entry(entry, id, file_, records_);
        break;
      case unit_tests_section:
        added = internal::add_unit_test_entry(entry, id, file_, records_);
        break;
      default:
        break;
    }
    return added_or_stop(std::move(added));
  }

  Result<internal::ManifestRecords> finish(Result<std::vector<bool>>&& streamed) {
    if (error_) return std::unexpected(std::move(*error_));
    if (!streamed) return std::unexpected(std::move(streamed.error()));
    const std::vector<bool>& seen = *streamed;
    for (const std::size_t required : {metadata_section, nodes_section, sources_section, macros_section}) {
      if (!seen[required]) {
        return fail("invalid_artifact", file_ + ": " + std::string(kSections[required].name) + ": missing");
      }
    }
    if (deferred_) return std::unexpected(std::move(*deferred_));
    if (overlay_ != nullptr && overlaid_ != overlay_->size()) {
      return fail("invalid_artifact", overlay_->file() + ": " + std::to_string(overlay_->size() - overlaid_) +
                                          " compiled node(s) are not in " + file_ +
                                          ": the compile and the parse read differ");
    }
    if (records_.meta.project_name.empty()) {
      return fail("no_project_name", file_ +
                                         ": metadata.project_name is missing: no project name, so ODS "
                                         "cannot tell this project's state from another's");
    }
    return std::move(records_);
  }

 private:
  bool added_or_stop(Result<void>&& added) {
    if (!added) {
      if (metadata_ok_) return stop(std::move(added.error()));
      deferred_ = std::move(added.error());
    }
    return true;
  }

  // Appends a node's records (nodes, checks, warnings: what add_node_entry writes).
  void append(internal::ManifestRecords&& part) {
    std::ranges::move(part.nodes, std::back_inserter(records_.nodes));
    std::ranges::move(part.checks, std::back_inserter(records_.checks));
    std::ranges::move(part.warnings, std::back_inserter(records_.warnings));
  }

  bool stop(Error e) {
    error_ = std::move(e);
    return false;
  }

  std::string file_;
  const internal::CompiledOverlay* overlay_;
  std::size_t overlaid_ = 0;                  // manifest entries the overlay stood in for
  mutable internal::ConfigMemo config_memo_;  // prepare() is const and runs on several workers
  internal::ManifestRecords records_;
  bool metadata_ok_ = false;
  std::optional<Error> error_;
  std::optional<Error> deferred_;
};

Result<internal::ManifestRecords> read_manifest(const std::filesystem::path& path,
                                                const internal::CompiledOverlay* overlay) {
  ODS_TRY(internal::MappedFile file, internal::MappedFile::open(path));
  const std::string name = path.string();
  ManifestSink sink(name, overlay);
  // Converting entries (canonical JSON, hashing, SQL normalisation) runs on two worker
  // threads while this one reads on; the text every entry of which is converted is given back
  // as the read goes (a 176 MB manifest otherwise stays resident beside its records).
  internal::ThreadedSink threaded(sink, 2, [&file](std::size_t offset) { file.release_before(offset); });
  auto streamed = internal::stream_sections(file.text(), name, kSections, threaded);
  threaded.finish();
  return sink.finish(std::move(streamed));
}

// Only the `metadata` section; stops the stream once it is read (dbt writes it first).
class MetadataSink final : public internal::StreamSink {
 public:
  explicit MetadataSink(std::string file) : file_(std::move(file)) {}
  Keep keep_key(std::size_t, const internal::EntrySoFar&, std::string_view) const override { return Keep::skip; }
  bool on_value(std::size_t /*section*/, Json&& metadata) override {
    meta_ = internal::read_manifest_meta(metadata, file_);
    return false;
  }
  bool on_entry(std::size_t, std::string&&, Json&&, const internal::RawMembers&) override { return true; }
  Result<ManifestMeta> finish(Result<std::vector<bool>> streamed) {
    if (meta_) return std::move(*meta_);
    if (!streamed) return std::unexpected(std::move(streamed.error()));
    return fail("invalid_artifact", file_ + ": metadata: missing");
  }

 private:
  std::string file_;
  std::optional<Result<ManifestMeta>> meta_;
};

constexpr std::array<internal::SectionSpec, 1> kMetadataOnly = {{{"metadata", SectionMode::whole}}};

}  // namespace

ArtifactPaths ArtifactPaths::in_project(const std::filesystem::path& project_dir) {
  ArtifactPaths paths;
  paths.manifest = project_dir / "target" / "manifest.json";
  std::error_code ec;
  if (const auto sources = project_dir / "target" / "sources.json"; std::filesystem::exists(sources, ec)) {
    paths.sources = sources;
  }
  return paths;
}

bool take_recorded_sql(planner::NodeInput& node, const std::string& recorded_sql, const std::string& run_id) {
  const auto entry = std::find(node.incomplete.begin(), node.incomplete.end(), kNoCompiledSql);
  if (entry == node.incomplete.end() || node.fingerprint.components.contains("sql")) return false;
  node.incomplete.erase(entry);
  node.fingerprint.components["sql"] = recorded_sql;
  node.sql_from_run = run_id;
  return true;
}

Result<DbtProject> read_dbt_project(const ArtifactPaths& paths, const ReadOptions& options) {
  std::optional<internal::CompiledOverlay> overlay;
  if (paths.compiled_nodes) {
    ODS_TRY(overlay, internal::CompiledOverlay::read(*paths.compiled_nodes));
  }
  ODS_TRY(internal::ManifestRecords records, read_manifest(paths.manifest, overlay ? &*overlay : nullptr));
  std::optional<internal::SourcesJson> sources;
  if (paths.sources) {
    ODS_TRY(sources, internal::read_sources_json(*paths.sources));
  }
  if (options.before_assembly) options.before_assembly(records.meta.project_name);
  return internal::assemble_project(std::move(records), options, sources ? &*sources : nullptr);
}

Result<planner::ProjectInputs> read_project_inputs(const ArtifactPaths& paths, const ReadOptions& options) {
  ODS_TRY(DbtProject project, read_dbt_project(paths, options));
  return std::move(project.inputs);
}

Result<planner::ProjectInputs> read_project_inputs(const std::filesystem::path& project_dir,
                                                   const ReadOptions& options) {
  return read_project_inputs(ArtifactPaths::in_project(project_dir), options);
}

Result<ManifestMeta> read_manifest_metadata(const std::filesystem::path& manifest) {
  ODS_TRY(const internal::MappedFile file, internal::MappedFile::open(manifest));
  const std::string name = manifest.string();
  MetadataSink sink(name);
  return sink.finish(internal::stream_sections(file.text(), name, kMetadataOnly, sink));
}

}  // namespace ods::dbt
