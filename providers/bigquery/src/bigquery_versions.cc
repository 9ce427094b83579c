#include "ods/bigquery/bigquery_versions.h"

#include "ods/content/content_versions.h"
#include "ods/metadata/metadata_versions.h"

namespace ods::bigquery {

namespace {

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

using metadata::column;
using metadata::MetadataReading;

// The table's partitions, aggregated into one row of INFORMATION_SCHEMA.PARTITIONS.
MetadataReading read_partitions_row(const contracts::ProbeAnswer& answer, const std::string& observed_at) {
  auto found = answer.rows.find(metadata::kMetadataStatement);
  const contracts::ProbeRow none;
  const auto& row = found == answer.rows.end() ? none : found->second;
  const std::string partitions = column(row, "partitions");
  if (partitions.empty() || partitions == "0")
    return {{},
            "INFORMATION_SCHEMA.PARTITIONS shows no partition of it (no permission to list its partitions, or not a "
            "table BigQuery stores: an external table)"};
  const std::string streaming = column(row, "streaming");
  if (streaming != "0")
    return {{},
            streaming.empty()
                ? "INFORMATION_SCHEMA.PARTITIONS did not say whether it has a streaming buffer"
                : "it has a streaming buffer (rows in its __STREAMING_UNPARTITIONED__ or __UNPARTITIONED__ "
                  "partition): streamed rows are read before its modification time moves"};
  const std::string last_modified = column(row, "last_modified");
  if (last_modified.empty()) return {{}, "INFORMATION_SCHEMA.PARTITIONS gave no last_modified_time"};
  return {planner::DataVersion{
              "partitions=" + partitions + ";rows=" + column(row, "row_count") + ";last_modified=" + last_modified,
              planner::Exactness::semantic, kLastModifiedOrigin, observed_at},
          ""};
}

}  // namespace

std::unique_ptr<contracts::ChangeProvider> make_bigquery_versions(BigQueryOptions options) {
  metadata::MetadataVersionsSpec spec;
  spec.origin = kBigQueryOrigin;
  spec.content_origin = kContentOrigin;
  spec.metadata = {metadata::kMetadataStatement, kMetadataSql, 1, "PARTITIONS"};
  spec.content = {content::kContentStatement, kContentSql};
  spec.content_max_bytes = options.content_max_bytes;
  spec.view_why =
      "BigQuery's modification time of a view moves when it is redefined, not when the tables it reads change";
  spec.read = read_partitions_row;
  return metadata::make_metadata_versions(std::move(spec));
}

}  // namespace ods::bigquery
