// SnowflakeVersions against recorded answers: each metadata row below is in the shape of
// Snowflake's INFORMATION_SCHEMA.TABLES view (https://docs.snowflake.com/en/sql-reference/info-schema/tables:
// TABLE_TYPE 'BASE TABLE' | 'VIEW' | 'EXTERNAL TABLE' | ..., ROW_COUNT, BYTES, CREATED, LAST_ALTERED
// "date and time the object was last altered by a DML, DDL, or background metadata operation"),
// as the probe returns it (values as text, the statement's lower-case aliases). The emulator
// (fakesnow) reports 1970 for every time, so these shapes are proven here only.
#include "ods/snowflake/snowflake_versions.h"

#include <gtest/gtest.h>

namespace ods::snowflake {
namespace {

using contracts::ProbeAnswer;

const char* kSource = "source.shop.raw.orders";

ProbeAnswer metadata(std::vector<contracts::ProbeRow> rows) {
  ProbeAnswer a;
  a.status = ProbeAnswer::Status::ok;
  a.row_sets["metadata"] = rows;
  a.rows["metadata"] = rows.empty() ? contracts::ProbeRow{} : rows.front();
  a.seconds = 0.12;
  return a;
}

contracts::ProbeRow table_row(std::string created, std::string last_altered, std::string bytes = "1048576") {
  return {{"table_type", "BASE TABLE"},
          {"created", std::move(created)},
          {"last_altered", std::move(last_altered)},
          {"row_count", "1000"},
          {"bytes", std::move(bytes)}};
}

contracts::SourceVersion version_of(const ProbeAnswer& answer, SnowflakeOptions options = {}) {
  contracts::ProbeReport report;
  report.sources[kSource] = answer;
  auto out = make_snowflake_versions(std::move(options))->versions(report, "2026-12-03T10:00:00Z");
  EXPECT_EQ(out.size(), 1u);
  return out.empty() ? contracts::SourceVersion{} : out.front();
}

TEST(SnowflakeVersions, RequestReadsTheTablesViewAndScansOnlyBelowTheLimit) {
  auto plain = make_snowflake_versions()->request();
  ASSERT_EQ(plain.statements.size(), 1u) << "no limit set: no scan";
  EXPECT_EQ(plain.statements[0].metadata_view, "TABLES");
  EXPECT_NE(plain.statements[0].sql.find("from {metadata_view}"), std::string::npos);
  EXPECT_NE(plain.statements[0].sql.find("'{identifier}'"), std::string::npos);
  EXPECT_EQ(plain.filter.kinds, std::vector<std::string>{"table"});

  auto limited = make_snowflake_versions({1000000, "bitxor_agg(hash(object_construct_keep_null(*)))"})->request();
  ASSERT_EQ(limited.statements.size(), 2u);
  const auto& content = limited.statements[1];
  ASSERT_TRUE(content.only_if);
  EXPECT_EQ(content.only_if->statement, "metadata");
  EXPECT_EQ(content.only_if->column, "bytes");
  EXPECT_EQ(content.only_if->max, 1000000u);
  EXPECT_NE(content.sql.find("to_varchar(bitxor_agg(hash(object_construct_keep_null(*)))) as \"content_hash\""),
            std::string::npos)
      << content.sql;
  EXPECT_NE(make_snowflake_versions({1, kDefaultContentHash})->request().statements[1].sql.find("hash_agg(*)"),
            std::string::npos);
}

// Normal: a base table; last_altered is semantic evidence, with the creation time beside it.
TEST(SnowflakeVersions, ABaseTablesLastAlteredIsSemanticEvidence) {
  auto v =
      version_of(metadata({table_row("2026-11-01T08:00:00.000000000+00:00", "2026-12-03T09:15:02.123456789+00:00")}));
  ASSERT_TRUE(v.version) << v.why_unknown;
  EXPECT_EQ(v.version->value,
            "created=2026-11-01T08:00:00.000000000+00:00;last_altered=2026-12-03T09:15:02.123456789+00:00");
  EXPECT_EQ(v.version->exactness, planner::Exactness::semantic);
  EXPECT_EQ(v.version->origin, kLastAlteredOrigin);
  EXPECT_DOUBLE_EQ(v.probe_seconds, 0.12);
  EXPECT_TRUE(v.evidence.empty());
}

// Dropped and created again (CREATE OR REPLACE TABLE, or DROP then CREATE): a new CREATED, and a
// LAST_ALTERED of its own: the version differs even when the rows are the same.
TEST(SnowflakeVersions, ATableDroppedAndCreatedAgainHasAnotherVersion) {
  auto before =
      version_of(metadata({table_row("2026-11-01T08:00:00.000000000+00:00", "2026-12-01T09:00:00.000000000+00:00")}));
  auto after =
      version_of(metadata({table_row("2026-12-03T09:30:00.000000000+00:00", "2026-12-03T09:30:00.000000000+00:00")}));
  ASSERT_TRUE(before.version && after.version);
  EXPECT_NE(before.version->value, after.version->value);
}

// A view source: the probe's listing (SHOW OBJECTS' kind VIEW) skips it; unknown, and why.
TEST(SnowflakeVersions, AViewSourceIsUnknown) {
  ProbeAnswer a;
  a.status = ProbeAnswer::Status::skipped;
  a.why = "a view, not table";
  auto v = version_of(a);
  EXPECT_FALSE(v.version);
  EXPECT_NE(v.why_unknown.find("redefined"), std::string::npos) << v.why_unknown;
}

// A table type whose last_altered is not known to follow its rows (an external table's files
// change in the stage without any DDL or DML on it).
TEST(SnowflakeVersions, AnExternalTableIsUnknown) {
  auto row = table_row("2026-11-01T08:00:00.000000000+00:00", "2026-12-01T09:00:00.000000000+00:00");
  row["table_type"] = "EXTERNAL TABLE";
  auto v = version_of(metadata({row}));
  EXPECT_FALSE(v.version);
  EXPECT_NE(v.why_unknown.find("'EXTERNAL TABLE'"), std::string::npos) << v.why_unknown;
}

// Permission: the Information Schema shows only the objects the current role has privileges on
// (https://docs.snowflake.com/en/sql-reference/info-schema, "General usage notes"), so a table
// the role can't see answers no row.
TEST(SnowflakeVersions, NoRowBecauseTheRoleCantSeeTheTableIsUnknown) {
  auto v = version_of(metadata({}));
  EXPECT_FALSE(v.version);
  EXPECT_NE(v.why_unknown.find("privileges"), std::string::npos) << v.why_unknown;
}

// Two tables whose quoted names differ only in case ("Orders" and "ORDERS") in one schema.
TEST(SnowflakeVersions, TwoRowsAreUncertain) {
  auto row = table_row("2026-11-01T08:00:00.000000000+00:00", "2026-12-01T09:00:00.000000000+00:00");
  auto v = version_of(metadata({row, row}));
  EXPECT_FALSE(v.version);
  EXPECT_NE(v.why_unknown.find("more than one"), std::string::npos);
}

TEST(SnowflakeVersions, AnEmptyLastAlteredIsUnknown) {
  auto v = version_of(metadata({table_row("2026-11-01T08:00:00.000000000+00:00", "")}));
  EXPECT_FALSE(v.version);
}

// Below the limit the content statement ran: an exact version, whatever the metadata says. The
// hash is HASH_AGG's signed 64-bit number (https://docs.snowflake.com/en/sql-reference/functions/hash_agg).
TEST(SnowflakeVersions, AContentAnswerIsExact) {
  auto a = metadata({table_row("2026-11-01T08:00:00.000000000+00:00", "2026-12-01T09:00:00.000000000+00:00", "2048")});
  a.rows["content"] = {{"row_count", "1000"}, {"content_hash", "-6937412390452183456"}};
  auto v = version_of(a, {4096, kDefaultContentHash});
  ASSERT_TRUE(v.version) << v.why_unknown;
  EXPECT_EQ(v.version->value, "rows=1000;hash=-6937412390452183456");
  EXPECT_EQ(v.version->exactness, planner::Exactness::exact);
  EXPECT_EQ(v.version->origin, kContentOrigin);
}

// Above the limit the scan did not run: semantic evidence, and a line saying why no content.
TEST(SnowflakeVersions, AboveTheLimitTheMetadataAnswersAndSaysWhy) {
  auto v = version_of(
      metadata({table_row("2026-11-01T08:00:00.000000000+00:00", "2026-12-01T09:00:00.000000000+00:00", "1048576")}),
      {4096, kDefaultContentHash});
  ASSERT_TRUE(v.version);
  EXPECT_EQ(v.version->exactness, planner::Exactness::semantic);
  ASSERT_EQ(v.evidence.size(), 1u);
  EXPECT_EQ(v.evidence[0].kind, "source_content_unread");
  EXPECT_NE(v.evidence[0].value.find("1048576 bytes"), std::string::npos) << v.evidence[0].value;
}

}  // namespace
}  // namespace ods::snowflake
