// BigQueryVersions against recorded answers: each metadata row below is the aggregate the
// statement computes over BigQuery's INFORMATION_SCHEMA.PARTITIONS view
// (https://cloud.google.com/bigquery/docs/information-schema-partitions: PARTITION_ID NULL for an
// unpartitioned table, TOTAL_ROWS, TOTAL_LOGICAL_BYTES, LAST_MODIFIED_TIME "the time when the data
// was most recently written to the partition"; the special partitions __NULL__, __UNPARTITIONED__
// and __STREAMING_UNPARTITIONED__ of https://cloud.google.com/bigquery/docs/partitioned-tables),
// as the probe returns it (values as text). The emulator (bqemulator) never moves
// last_modified_time and has no streaming buffer, so these shapes are proven here only.
#include "ods/bigquery/bigquery_versions.h"

#include <gtest/gtest.h>

namespace ods::bigquery {
namespace {

using contracts::ProbeAnswer;

const char* kSource = "source.shop.raw.orders";

ProbeAnswer metadata(contracts::ProbeRow row) {
  ProbeAnswer a;
  a.status = ProbeAnswer::Status::ok;
  a.rows["metadata"] = row;
  a.row_sets["metadata"] = {row};
  a.seconds = 0.4;
  return a;
}

contracts::ProbeRow table_row(std::string partitions, std::string streaming, std::string last_modified,
                              std::string bytes = "52428800") {
  return {{"partitions", std::move(partitions)},
          {"streaming", std::move(streaming)},
          {"row_count", "120000"},
          {"bytes", std::move(bytes)},
          {"last_modified", std::move(last_modified)}};
}

contracts::SourceVersion version_of(const ProbeAnswer& answer, BigQueryOptions options = {}) {
  contracts::ProbeReport report;
  report.sources[kSource] = answer;
  auto out = make_bigquery_versions(options)->versions(report, "2026-12-03T10:00:00Z");
  EXPECT_EQ(out.size(), 1u);
  return out.empty() ? contracts::SourceVersion{} : out.front();
}

TEST(BigQueryVersions, RequestReadsThePartitionsViewAndScansOnlyBelowTheLimit) {
  auto plain = make_bigquery_versions()->request();
  ASSERT_EQ(plain.statements.size(), 1u) << "no limit set: no scan";
  EXPECT_EQ(plain.statements[0].metadata_view, "PARTITIONS");
  EXPECT_NE(plain.statements[0].sql.find("where table_name = '{identifier}'"), std::string::npos);
  EXPECT_NE(plain.statements[0].sql.find("__STREAMING_UNPARTITIONED__"), std::string::npos);

  auto limited = make_bigquery_versions({1000000})->request();
  ASSERT_EQ(limited.statements.size(), 2u);
  ASSERT_TRUE(limited.statements[1].only_if);
  EXPECT_EQ(limited.statements[1].only_if->column, "bytes");
  EXPECT_NE(limited.statements[1].sql.find("bit_xor(farm_fingerprint(to_json_string(t)))"), std::string::npos);

  auto built = make_bigquery_versions()->content_request();
  ASSERT_EQ(built.statements.size(), 1u);
  EXPECT_FALSE(built.statements[0].only_if);
}

// Normal: an unpartitioned table (one partition, PARTITION_ID NULL).
TEST(BigQueryVersions, ATablesLastModifiedTimeIsSemanticEvidence) {
  auto v = version_of(metadata(table_row("1", "0", "2026-12-03T09:15:02.123456Z")));
  ASSERT_TRUE(v.version) << v.why_unknown;
  EXPECT_EQ(v.version->value, "partitions=1;rows=120000;last_modified=2026-12-03T09:15:02.123456Z");
  EXPECT_EQ(v.version->exactness, planner::Exactness::semantic);
  EXPECT_EQ(v.version->origin, kLastModifiedOrigin);
  EXPECT_DOUBLE_EQ(v.probe_seconds, 0.4);
}

// A whole partition deleted (or expired) leaves the newest time as it was; the count moves.
TEST(BigQueryVersions, APartitionRemovedWholeMovesTheVersion) {
  auto before = version_of(metadata(table_row("31", "0", "2026-12-03T09:15:02.123456Z")));
  auto after = version_of(metadata(table_row("30", "0", "2026-12-03T09:15:02.123456Z")));
  ASSERT_TRUE(before.version && after.version);
  EXPECT_NE(before.version->value, after.version->value);
}

// Streaming buffer: rows streamed in and not yet written to a partition show in the
// __STREAMING_UNPARTITIONED__ partition (or __UNPARTITIONED__ of an ingestion-time partitioned
// table); they are readable before LAST_MODIFIED_TIME moves. Unknown.
TEST(BigQueryVersions, AStreamingBufferIsUnknown) {
  auto v = version_of(metadata(table_row("32", "1", "2026-12-03T09:15:02.123456Z")));
  EXPECT_FALSE(v.version);
  EXPECT_NE(v.why_unknown.find("streaming buffer"), std::string::npos) << v.why_unknown;
}

// Dropped and created again (CREATE OR REPLACE TABLE): its partitions are written anew.
TEST(BigQueryVersions, ATableDroppedAndCreatedAgainHasAnotherVersion) {
  auto before = version_of(metadata(table_row("1", "0", "2026-12-01T09:00:00.000000Z")));
  auto after = version_of(metadata(table_row("1", "0", "2026-12-03T09:30:00.000000Z")));
  ASSERT_TRUE(before.version && after.version);
  EXPECT_NE(before.version->value, after.version->value);
}

// A view source: the listing (dbt-bigquery's relation type view) skips it.
TEST(BigQueryVersions, AViewSourceIsUnknown) {
  ProbeAnswer a;
  a.status = ProbeAnswer::Status::skipped;
  a.why = "a view, not table";
  auto v = version_of(a);
  EXPECT_FALSE(v.version);
  EXPECT_NE(v.why_unknown.find("redefined"), std::string::npos) << v.why_unknown;
}

// Permission: PARTITIONS needs bigquery.tables.get and bigquery.tables.list (the page's "Required
// permissions"); without them on one table its rows are absent: count(*) is 0 and the
// aggregates NULL (absent from the probe's row).
TEST(BigQueryVersions, NoPartitionRowBecauseOfPermissionsIsUnknown) {
  auto v = version_of(metadata({{"partitions", "0"}, {"streaming", "0"}}));
  EXPECT_FALSE(v.version);
  EXPECT_NE(v.why_unknown.find("no permission"), std::string::npos) << v.why_unknown;
}

TEST(BigQueryVersions, AnAnswerWithoutTheStreamingColumnIsUnknown) {
  auto row = table_row("1", "0", "2026-12-03T09:15:02.123456Z");
  row.erase("streaming");
  EXPECT_FALSE(version_of(metadata(row)).version);
}

// Below the limit: count, bit_xor of FARM_FINGERPRINT and the sum of their top bits (INT64s,
// https://cloud.google.com/bigquery/docs/reference/standard-sql/hash_functions#farm_fingerprint).
TEST(BigQueryVersions, AContentAnswerIsExactEvenWithAStreamingBuffer) {
  auto a = metadata(table_row("2", "1", "2026-12-03T09:15:02.123456Z", "2048"));
  a.rows["content"] = {
      {"row_count", "120000"}, {"content_hash", "-4385294613097751104"}, {"content_sum", "-2766574191"}};
  auto v = version_of(a, {4096});
  ASSERT_TRUE(v.version) << v.why_unknown;
  EXPECT_EQ(v.version->value, "rows=120000;hash=-4385294613097751104;sum=-2766574191");
  EXPECT_EQ(v.version->exactness, planner::Exactness::exact);
  EXPECT_EQ(v.version->origin, kContentOrigin);
}

TEST(BigQueryVersions, AboveTheLimitTheMetadataAnswersAndSaysWhy) {
  auto v = version_of(metadata(table_row("1", "0", "2026-12-03T09:15:02.123456Z", "52428800")), {4096});
  ASSERT_TRUE(v.version);
  EXPECT_EQ(v.version->exactness, planner::Exactness::semantic);
  ASSERT_EQ(v.evidence.size(), 1u);
  EXPECT_NE(v.evidence[0].value.find("52428800 bytes"), std::string::npos);
}

}  // namespace
}  // namespace ods::bigquery
