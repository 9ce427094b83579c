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

  bool content_covers_schema() const override { return spec_.content_covers_schema; }

  contracts::ProbeRequest request() const override { return gated(spec_.metadata); }

  contracts::ProbeRequest content_request() const override {
    if (spec_.gate_content_request) {
      contracts::ProbeStatement gate = spec_.metadata;
      gate.name = kContentGateStatement;
      return gated(gate);
    }
    contracts::ProbeRequest r;
    r.filter.kinds = spec_.kinds;
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
  // `size` first (its `bytes` column), then the content statement where a limit is set and the
  // size is within it.
  contracts::ProbeRequest gated(const contracts::ProbeStatement& size) const {
    contracts::ProbeRequest r;
    r.filter.kinds = spec_.kinds;
    r.statements = {size};
    if (spec_.content_max_bytes) {
      contracts::ProbeStatement content = spec_.content;
      content.only_if = contracts::ProbeCondition{size.name, "bytes", *spec_.content_max_bytes};
      r.statements.push_back(std::move(content));
    }
    return r;
  }

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
    // Why the exact evidence lost: its answer was refused, or the size gate kept it from running.
    std::string unread = content_why;
    if (unread.empty() && spec_.content_max_bytes) {
      const std::string bytes = bytes_of(answer);
      unread = "not fingerprinted: its size (" + (bytes.empty() ? "unknown" : bytes + " bytes") +
               ") is above the content limit of " + std::to_string(*spec_.content_max_bytes) + " bytes";
    }
    MetadataReading reading = spec_.read(answer, observed_at);
    if (!reading.version) {
      v.why_unknown = reading.why_unknown + (unread.empty() ? "" : "; and its content was " + unread);
      return v;
    }
    v.version = std::move(reading.version);
    if (!unread.empty())
      v.evidence.push_back({"source_content_unread", id, unread, planner::Exactness::none, spec_.content_origin});
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
