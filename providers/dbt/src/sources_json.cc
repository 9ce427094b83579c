#include "sources_json.h"

#include <array>

#include "json_access.h"
#include "json_stream.h"
#include "mapped_file.h"
#include "ods/base/result.h"
#include "ods/dbt/artifacts.h"

namespace ods::dbt::internal {
namespace {

constexpr std::array<SectionSpec, 2> kSections = {
    {{"metadata", SectionMode::whole}, {"results", SectionMode::entry_list}}};

class SourcesSink final : public StreamSink {
 public:
  explicit SourcesSink(std::string file) { out_.file = std::move(file); }

  Keep keep_key(std::size_t /*section*/, const EntrySoFar& /*partial*/, std::string_view key) const override {
    return key == "unique_id" || key == "max_loaded_at" || key == "snapshotted_at" || key == "status" || key == "error"
               ? Keep::build
               : Keep::skip;
  }

  bool on_value(std::size_t /*section*/, Json&& metadata) override {
    auto version = schema_version(metadata);
    if (!version) return stop(std::move(version.error()));
    if (!*version || **version != kSourcesSchemaV3) {
      return stop(Error{"unsupported_schema", out_.file + ": dbt_schema_version " +
                                                  (*version ? "\"" + **version + "\"" : std::string("(none)")) +
                                                  " is not supported; ODS reads sources.json v3 (" +
                                                  std::string(kSourcesSchemaV3) + ")"});
    }
    metadata_ok_ = true;
    return true;
  }

  bool on_entry(std::size_t /*section*/, std::string&& index, Json&& entry, const RawMembers& /*raw*/) override {
    auto added = add(entry, index);
    if (!added) {
      if (metadata_ok_) return stop(std::move(added.error()));
      if (!deferred_) deferred_ = std::move(added.error());
    }
    return true;
  }

  Result<SourcesJson> finish(Result<std::vector<bool>>&& streamed) {
    if (error_) return std::unexpected(std::move(*error_));
    if (!streamed) return std::unexpected(std::move(streamed.error()));
    if (!(*streamed)[0]) return fail("invalid_artifact", out_.file + ": metadata: missing");
    if (deferred_) return std::unexpected(std::move(*deferred_));
    return std::move(out_);
  }

 private:
  bool stop(Error e) {
    error_ = std::move(e);
    return false;
  }

  Result<std::optional<std::string>> schema_version(const Json& metadata) const {
    const Field meta(&metadata, out_.file, "metadata");
    ODS_TRY(const Json* object, meta.object());
    if (object == nullptr) return std::unexpected(meta.error("expected an object"));
    ODS_TRY(const Field field, meta.member("dbt_schema_version"));
    return field.string();
  }

  Result<void> add(const Json& entry, const std::string& index) {
    const Field result(&entry, out_.file, "results[" + index + "]");
    SourceFreshnessResult item;
    std::string id;
    const std::pair<const char*, std::string*> fields[] = {{"unique_id", &id},
                                                           {"max_loaded_at", &item.max_loaded_at},
                                                           {"snapshotted_at", &item.snapshotted_at},
                                                           {"status", &item.status},
                                                           {"error", &item.error}};
    for (const auto& [key, target] : fields) {
      ODS_TRY(const Field field, result.member(key));
      ODS_TRY(const std::optional<std::string> value, field.string());
      if (value) *target = *value;
    }
    if (id.empty()) {
      ODS_TRY(const Field field, result.member("unique_id"));
      return std::unexpected(field.error("expected a string"));
    }
    out_.results.insert_or_assign(std::move(id), std::move(item));
    return {};
  }

  SourcesJson out_;
  bool metadata_ok_ = false;
  std::optional<Error> error_;     // stops the stream
  std::optional<Error> deferred_;  // reported once the schema version is known to be v3
};

}  // namespace

Result<SourcesJson> read_sources_json(const std::filesystem::path& path) {
  ODS_TRY(const MappedFile file, MappedFile::open(path));
  SourcesSink sink(path.string());
  return sink.finish(stream_sections(file.text(), path.string(), kSections, sink));
}

}  // namespace ods::dbt::internal
