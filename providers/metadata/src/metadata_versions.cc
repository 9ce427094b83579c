#include "ods/metadata/metadata_versions.h"

#include "ods/content/content_versions.h"

namespace ods::metadata {

namespace {

using contracts::ProbeAnswer;

// The size the metadata answer gives (its first row's `bytes`, as the gate read it), as text.
std::string bytes_of(const ProbeAnswer& answer) {
  auto row = answer.rows.find(kMetadataStatement);
  return row == answer.rows.end() ? "" : column(row->second, "bytes");
}

class MetadataVersions final : public contracts::ChangeProvider {
 public:
  explicit MetadataVersions(MetadataVersionsSpec spec) : spec_(std::move(spec)) {
    spec_.metadata.name = kMetadataStatement;
    spec_.content.name = content::kContentStatement;
  }

  std::string origin() const override { return spec_.origin; }

  contracts::ProbeRequest request() const override {
    contracts::ProbeRequest r;
    r.filter.kinds = {"table"};
    r.statements = {spec_.metadata};
    if (spec_.content_max_bytes) {
      contracts::ProbeStatement content = spec_.content;
      content.only_if = contracts::ProbeCondition{kMetadataStatement, "bytes", *spec_.content_max_bytes};
      r.statements.push_back(std::move(content));
    }
    return r;
  }

  contracts::ProbeRequest content_request() const override {
    contracts::ProbeRequest r;
    r.filter.kinds = {"table"};
    r.statements = {spec_.content};
    return r;
  }

  std::vector<contracts::SourceVersion> versions(const contracts::ProbeReport& report,
                                                 const std::string& observed_at) const override {
    std::vector<contracts::SourceVersion> out;
    for (const auto& [id, answer] : report.sources) out.push_back(one(id, answer, observed_at));
    return out;
  }

 private:
  contracts::SourceVersion one(const std::string& id, const ProbeAnswer& answer, const std::string& observed_at) const {
    contracts::SourceVersion v;
    v.source_id = id;
    v.probe_seconds = answer.seconds;
    switch (answer.status) {
      case ProbeAnswer::Status::skipped:
        v.why_unknown = "a view (" + answer.why + "): " + spec_.view_why;
        return v;
      case ProbeAnswer::Status::missing:
      case ProbeAnswer::Status::unknown:
        v.why_unknown = answer.why.empty() ? "the probe had no answer" : answer.why;
        return v;
      case ProbeAnswer::Status::ok:
        break;
    }
    std::string content_why;
    if (answer.rows.contains(content::kContentStatement)) {
      v.version = content::content_version_of(answer, spec_.content_origin, observed_at, content_why);
      if (v.version) return v;
    }
    MetadataReading reading = spec_.read(answer, observed_at);
    if (!reading.version) {
      v.why_unknown = reading.why_unknown;
      return v;
    }
    v.version = std::move(reading.version);
    if (!content_why.empty()) {
      v.evidence.push_back({"source_content_unread", id, content_why, planner::Exactness::none, spec_.content_origin});
    } else if (spec_.content_max_bytes) {
      const std::string bytes = bytes_of(answer);
      v.evidence.push_back({"source_content_unread", id,
                            "not fingerprinted: its size (" + (bytes.empty() ? "unknown" : bytes + " bytes") +
                                ") is above the content limit of " + std::to_string(*spec_.content_max_bytes) +
                                " bytes",
                            planner::Exactness::none, spec_.content_origin});
    }
    return v;
  }

  MetadataVersionsSpec spec_;
};

}  // namespace

std::string column(const contracts::ProbeRow& row, const std::string& name) {
  auto it = row.find(name);
  return it == row.end() ? "" : it->second;
}

std::unique_ptr<contracts::ChangeProvider> make_metadata_versions(MetadataVersionsSpec spec) {
  return std::make_unique<MetadataVersions>(std::move(spec));
}

}  // namespace ods::metadata
