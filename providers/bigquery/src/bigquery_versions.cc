#include "ods/bigquery/bigquery_versions.h"

#include "ods/content/content_versions.h"

namespace ods::bigquery {

namespace {

using contracts::ProbeAnswer;

constexpr const char* kMetadata = "metadata";

// Values cast to text here: the probe passes them on as the warehouse prints them.
constexpr const char* kMetadataSql =
    "select cast(count(*) as string) as partitions, "
    "cast(countif(partition_id in ('__STREAMING_UNPARTITIONED__', '__UNPARTITIONED__')) as string) as streaming, "
    "cast(sum(total_rows) as string) as row_count, cast(sum(total_logical_bytes) as string) as bytes, "
    "format_timestamp('%Y-%m-%dT%H:%M:%E6SZ', max(last_modified_time)) as last_modified "
    "from {metadata_view} where table_name = '{identifier}'";

// The sum takes each fingerprint's top 24 bits, so it can't overflow below 2^40 rows.
constexpr const char* kContentSql =
    "select cast(count(*) as string) as row_count, "
    "cast(bit_xor(farm_fingerprint(to_json_string(t))) as string) as content_hash, "
    "cast(coalesce(sum(div(farm_fingerprint(to_json_string(t)), 1099511627776)), 0) as string) as content_sum "
    "from {relation} as t";

std::string column(const contracts::ProbeRow& row, const std::string& name) {
  auto it = row.find(name);
  return it == row.end() ? "" : it->second;
}

class BigQueryVersions final : public contracts::ChangeProvider {
 public:
  explicit BigQueryVersions(BigQueryOptions options) : options_(options) {}

  std::string origin() const override { return kBigQueryOrigin; }

  contracts::ProbeRequest request() const override {
    contracts::ProbeRequest r;
    r.filter.kinds = {"table"};
    contracts::ProbeStatement metadata{kMetadata, kMetadataSql, 1};
    metadata.metadata_view = "PARTITIONS";
    r.statements = {metadata};
    if (options_.content_max_bytes) {
      contracts::ProbeStatement content{content::kContentStatement, kContentSql};
      content.only_if = contracts::ProbeCondition{kMetadata, "bytes", *options_.content_max_bytes};
      r.statements.push_back(std::move(content));
    }
    return r;
  }

  contracts::ProbeRequest content_request() const override {
    contracts::ProbeRequest r;
    r.filter.kinds = {"table"};
    r.statements = {{content::kContentStatement, kContentSql}};
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
        v.why_unknown = "a view (" + answer.why +
                        "): BigQuery's modification time of a view moves when it is redefined, not when the "
                        "tables it reads change";
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
      v.version = content::content_version_of(answer, kContentOrigin, observed_at, content_why);
      if (v.version) return v;
    }
    auto metadata = answer.rows.find(kMetadata);
    const contracts::ProbeRow none;
    const auto& row = metadata == answer.rows.end() ? none : metadata->second;
    const std::string partitions = column(row, "partitions");
    if (partitions.empty() || partitions == "0") {
      v.why_unknown =
          "INFORMATION_SCHEMA.PARTITIONS shows no partition of it (no permission to list its partitions, or not a "
          "table BigQuery stores: an external table)";
      return v;
    }
    const std::string streaming = column(row, "streaming");
    if (streaming != "0") {
      v.why_unknown = streaming.empty()
                          ? "INFORMATION_SCHEMA.PARTITIONS did not say whether it has a streaming buffer"
                          : "it has a streaming buffer (rows in its __STREAMING_UNPARTITIONED__ or __UNPARTITIONED__ "
                            "partition): streamed rows are read before its modification time moves";
      return v;
    }
    const std::string last_modified = column(row, "last_modified");
    if (last_modified.empty()) {
      v.why_unknown = "INFORMATION_SCHEMA.PARTITIONS gave no last_modified_time";
      return v;
    }
    v.version = planner::DataVersion{
        "partitions=" + partitions + ";rows=" + column(row, "row_count") + ";last_modified=" + last_modified,
        planner::Exactness::semantic, kLastModifiedOrigin, observed_at};
    if (!content_why.empty()) {
      v.evidence.push_back({"source_content_unread", id, content_why, planner::Exactness::none, kContentOrigin});
    } else if (options_.content_max_bytes) {
      const std::string bytes = column(row, "bytes");
      v.evidence.push_back({"source_content_unread", id,
                            "not fingerprinted: its size (" + (bytes.empty() ? "unknown" : bytes + " bytes") +
                                ") is above the content limit of " + std::to_string(*options_.content_max_bytes) +
                                " bytes",
                            planner::Exactness::none, kContentOrigin});
    }
    return v;
  }

  BigQueryOptions options_;
};

}  // namespace

std::unique_ptr<contracts::ChangeProvider> make_bigquery_versions(BigQueryOptions options) {
  return std::make_unique<BigQueryVersions>(options);
}

}  // namespace ods::bigquery
