// DuckDbStorageVersions: its request (the storage statement, the content fingerprint only where
// the storage can't prove anything, views by content) and its reading of the answers. The storage
// identity itself, on real DuckDB files: storage_file_test.cc.
#include "ods/duckdb/duckdb_versions.h"

#include <gtest/gtest.h>

#include "ods/content/content_versions.h"
#include "ods/duckdb/storage_identity.h"

namespace ods::duckdb {
namespace {

using contracts::ProbeAnswer;

constexpr const char* kSource = "source.shop.raw.orders";
constexpr const char* kMd5 = "0123456789abcdef0123456789abcdef";

ProbeAnswer answer_with(std::map<std::string, contracts::ProbeRow> rows) {
  ProbeAnswer a;
  a.status = ProbeAnswer::Status::ok;
  a.rows = std::move(rows);
  return a;
}

contracts::ProbeRow storage_row(const std::string& usable, const std::string& file, const std::string& taken = "") {
  return {{"storage_layout", kMd5},    {"storage_blocks", "1,2"},
          {"storage_rows", "10"},      {"storage_usable", usable},
          {"storage_schema", kMd5},    {"storage_file", file},
          {"storage_bytes", "524288"}, {"storage_taken", taken.empty() ? usable : taken}};
}

contracts::ProbeRow content_row() { return {{"row_count", "10"}, {"content_hash", "42"}, {"content_schema", kMd5}}; }

std::vector<contracts::SourceVersion> read(const ProbeAnswer& answer) {
  contracts::ProbeReport report;
  report.sources[kSource] = answer;
  return make_duckdb_storage_versions("/nonexistent")->versions(report, "2026-12-07T16:00:00Z");
}

TEST(DuckDbStorageVersions, AsksTablesForTheirStorageAndTheirContentOnlyWhereTheStorageProvesNothing) {
  auto request = make_duckdb_storage_versions("/tmp")->request();
  ASSERT_EQ(request.filter.kinds, std::vector<std::string>{"table"});
  ASSERT_EQ(request.statements.size(), 2u);
  EXPECT_EQ(request.statements[0].name, kStorageStatement);
  EXPECT_EQ(request.statements[1].name, content::kContentStatement);
  ASSERT_TRUE(request.statements[1].only_if);
  EXPECT_EQ(request.statements[1].only_if->statement, kStorageStatement);
  EXPECT_EQ(request.statements[1].only_if->column, "storage_taken");
  EXPECT_EQ(request.statements[1].only_if->max, 0u);
  ASSERT_TRUE(request.fallback);
  EXPECT_EQ(request.fallback->filter.kinds, std::vector<std::string>{"view"});
  ASSERT_EQ(request.fallback->statements.size(), 1u);
  EXPECT_EQ(request.fallback->statements[0].name, content::kContentStatement);
}

TEST(DuckDbStorageVersions, ReadsByContentWhereTheStorageProvesNothing) {
  auto v = read(answer_with({{kStorageStatement, storage_row("0", "/x.duckdb")}, {"content", content_row()}}));
  ASSERT_EQ(v.size(), 1u);
  ASSERT_TRUE(v[0].version);
  EXPECT_EQ(v[0].version->origin, "duckdb_content");
  EXPECT_EQ(v[0].version->exactness, planner::Exactness::exact);
  ASSERT_EQ(v[0].evidence.size(), 1u);
  EXPECT_NE(v[0].evidence[0].value.find("deleted rows"), std::string::npos) << v[0].evidence[0].value;
}

TEST(DuckDbStorageVersions, ReadsAViewByContent) {
  auto v = read(answer_with({{"content", content_row()}}));
  ASSERT_TRUE(v[0].version);
  EXPECT_EQ(v[0].version->origin, "duckdb_content");
}

TEST(DuckDbStorageVersions, IsUnknownWhenTheBlocksCantBeReadAndNoContentWasRead) {
  // storage_usable 1 kept the fingerprint from running; the file is not there to read.
  auto v = read(answer_with({{kStorageStatement, storage_row("1", "/nonexistent/x.duckdb")}}));
  ASSERT_FALSE(v[0].version);
  EXPECT_NE(v[0].why_unknown.find("no storage identity"), std::string::npos) << v[0].why_unknown;
  EXPECT_NE(v[0].why_unknown.find("can't be opened"), std::string::npos) << v[0].why_unknown;
}

// The default (issue 38): a table whose blocks are at most ODS_CONTENT_MAX_BYTES is read by
// content, saying why; a larger one by its storage.
TEST(DuckDbStorageVersions, ReadsATableAtMostTheContentLimitByContentSayingWhy) {
  auto request = make_duckdb_storage_versions("/tmp", 1000000)->request();
  EXPECT_NE(request.statements[0].sql.find("> 1000000"), std::string::npos) << request.statements[0].sql;
  contracts::ProbeReport report;
  report.sources[kSource] =
      answer_with({{kStorageStatement, storage_row("1", "/x.duckdb", "0")}, {"content", content_row()}});
  auto v = make_duckdb_storage_versions("/nonexistent", 1000000)->versions(report, "2026-12-07T16:00:00Z");
  ASSERT_TRUE(v[0].version);
  EXPECT_EQ(v[0].version->origin, "duckdb_content");
  ASSERT_EQ(v[0].evidence.size(), 1u);
  EXPECT_EQ(v[0].evidence[0].kind, "storage_identity_unread");
  EXPECT_NE(v[0].evidence[0].value.find("at most ODS_CONTENT_MAX_BYTES (1000000)"), std::string::npos)
      << v[0].evidence[0].value;
  // Above the limit: the storage identity is read (here its file is missing: unknown, saying so).
  report.sources[kSource] = answer_with({{kStorageStatement, storage_row("1", "/nonexistent/x.duckdb", "1")}});
  auto large = make_duckdb_storage_versions("/nonexistent", 1000000)->versions(report, "2026-12-07T16:00:00Z");
  ASSERT_FALSE(large[0].version);
  EXPECT_NE(large[0].why_unknown.find("can't be opened"), std::string::npos) << large[0].why_unknown;
}

TEST(DuckDbStorageVersions, IsUnknownWithoutAnAnswer) {
  ProbeAnswer failed;
  failed.status = ProbeAnswer::Status::missing;
  failed.why = "relation raw.orders does not exist";
  auto v = read(failed);
  ASSERT_FALSE(v[0].version);
  EXPECT_EQ(v[0].why_unknown, "relation raw.orders does not exist");
}

}  // namespace
}  // namespace ods::duckdb
