#include "ods/duckdb/duckdb_versions.h"

#include <string>
#include <utility>
#include <vector>

#include "ods/content/content_versions.h"
#include "ods/duckdb/storage_identity.h"

namespace ods::duckdb {

namespace {

class DuckDbStorageVersions final : public contracts::ChangeProvider {
 public:
  DuckDbStorageVersions(std::filesystem::path working_dir, std::optional<unsigned long long> content_max_bytes)
      : working_dir_(std::move(working_dir)),
        content_max_bytes_(content_max_bytes),
        content_(content::make_duckdb_content_versions()) {}

  std::string origin() const override { return "duckdb_storage"; }

  bool content_covers_schema() const override { return content_->content_covers_schema(); }

  contracts::ProbeRequest request() const override {
    contracts::ProbeRequest content = content_->request();
    contracts::ProbeRequest r;
    r.sources = true;
    r.nodes = true;
    r.filter.kinds = {"table"};
    contracts::ProbeStatement storage{kStorageStatement, storage_statement(content_max_bytes_)};
    // The content fingerprint only where storage_taken is 0 (the storage can't prove anything,
    // or the table is small enough for its content).
    contracts::ProbeStatement fingerprint = content.statements.at(0);
    fingerprint.only_if = contracts::ProbeCondition{kStorageStatement, "storage_taken", 0};
    r.statements = {storage, fingerprint};
    r.fallback = contracts::ProbeFallback{{{"view"}, {}}, content.statements};
    return r;
  }

  contracts::ProbeRequest content_request() const override { return content_->content_request(); }

  std::vector<contracts::SourceVersion> versions(const contracts::ProbeReport& report,
                                                 const std::string& observed_at) const override {
    std::vector<contracts::SourceVersion> out;
    for (const auto& [id, answer] : report.sources) out.push_back(version_of(id, answer, observed_at));
    return out;
  }

 private:
  contracts::SourceVersion version_of(const std::string& id, const contracts::ProbeAnswer& answer,
                                      const std::string& observed_at) const {
    contracts::SourceVersion v;
    v.source_id = id;
    v.probe_seconds = answer.seconds;
    if (answer.status != contracts::ProbeAnswer::Status::ok) {
      v.why_unknown = answer.why.empty() ? "the probe had no answer" : answer.why;
      return v;
    }
    std::string why_not_storage = "it is a view (no storage of its own)";
    if (auto storage = answer.rows.find(kStorageStatement); storage != answer.rows.end()) {
      const auto column = [&](const char* name) {
        auto it = storage->second.find(name);
        return it == storage->second.end() ? std::string() : it->second;
      };
      if (content_max_bytes_ && column("storage_usable") == "1" && column("storage_taken") == "0") {
        why_not_storage = "its storage (" + column("storage_bytes") + " bytes) is at most ODS_CONTENT_MAX_BYTES (" +
                          std::to_string(*content_max_bytes_) +
                          "): its content fingerprint costs about as little, and reuses the same rows written again "
                          "where its storage identity would not";
        return by_content(id, answer, observed_at, why_not_storage, v);
      }
      auto identity = storage_identity_of(storage->second, working_dir_);
      if (identity) {
        v.version =
            planner::DataVersion{"storage:" + *identity, planner::Exactness::exact, origin(), observed_at, true};
        return v;
      }
      why_not_storage = identity.error();
    }
    return by_content(id, answer, observed_at, why_not_storage, v);
  }

  // The content version where the storage identity was not taken (`why_not_storage`), with an
  // evidence line saying why; else unknown, with both reasons.
  contracts::SourceVersion& by_content(const std::string& id, const contracts::ProbeAnswer& answer,
                                       const std::string& observed_at, const std::string& why_not_storage,
                                       contracts::SourceVersion& v) const {
    if (answer.rows.contains(content::kContentStatement)) {
      v.version = content::content_version_of(answer, "duckdb_content", observed_at, v.why_unknown);
      v.evidence.push_back(
          {"storage_identity_unread", id, "read by content: " + why_not_storage, planner::Exactness::none, origin()});
      return v;
    }
    v.why_unknown = "no storage identity (" + why_not_storage + ") and its content was not read";
    return v;
  }

  std::filesystem::path working_dir_;
  std::optional<unsigned long long> content_max_bytes_;
  std::unique_ptr<contracts::ChangeProvider> content_;
};

}  // namespace

std::unique_ptr<contracts::ChangeProvider> make_duckdb_storage_versions(
    std::filesystem::path working_dir, std::optional<unsigned long long> content_max_bytes) {
  return std::make_unique<DuckDbStorageVersions>(std::move(working_dir), content_max_bytes);
}

}  // namespace ods::duckdb
