// The content ChangeProviders turn probe answers into exact versions, and anything else into unknown.
#include "ods/content/content_versions.h"

#include <gtest/gtest.h>

namespace ods::content {
namespace {

using contracts::ProbeAnswer;

contracts::ProbeReport report_with(const std::string& id, ProbeAnswer answer) {
  contracts::ProbeReport r;
  r.sources[id] = std::move(answer);
  return r;
}

ProbeAnswer ok(std::string rows, std::string hash) {
  ProbeAnswer a;
  a.status = ProbeAnswer::Status::ok;
  a.rows["content"] = {{"row_count", std::move(rows)}, {"content_hash", std::move(hash)}};
  a.seconds = 0.01;
  return a;
}

TEST(ContentVersions, RequestRunsOneStatementPerTableWithTheRelationPlaceholder) {
  for (auto make : {&make_duckdb_content_versions}) {
    auto provider = make();
    auto r = provider->request();
    ASSERT_EQ(r.statements.size(), 1u);
    EXPECT_NE(r.statements[0].sql.find("{relation}"), std::string::npos);
    EXPECT_TRUE(r.sources);
  }
}

TEST(ContentVersions, AnOkAnswerIsAnExactVersionOfRowsAndHash) {
  auto provider = make_duckdb_content_versions();
  auto v = provider->versions(report_with("source.shop.raw.orders", ok("1000", "92748926")), "2026-11-29T12:00:00Z");
  ASSERT_EQ(v.size(), 1u);
  ASSERT_TRUE(v[0].version);
  EXPECT_EQ(v[0].version->value, "rows=1000;hash=92748926");
  EXPECT_EQ(v[0].version->exactness, planner::Exactness::exact);
  EXPECT_EQ(v[0].version->origin, "duckdb_content");
  EXPECT_EQ(v[0].version->observed_at, "2026-11-29T12:00:00Z");
}

// Issue 27: the columns (names and types, in order) are part of the content where the dialect
// gives them, and the version says so; a content without them does not claim it.
TEST(ContentVersions, TheColumnsDigestIsPartOfTheContentAndMarksItAsCoveringTheSchema) {
  for (auto make : {&make_duckdb_content_versions}) {
    auto provider = make();
    EXPECT_TRUE(provider->content_covers_schema());
    EXPECT_NE(provider->content_request().statements.at(0).sql.find("content_schema"), std::string::npos);
    ProbeAnswer a = ok("3", "42");
    a.rows["content"]["content_schema"] = "0123456789abcdef0123456789abcdef";
    auto v = provider->versions(report_with("s", a), "t");
    ASSERT_TRUE(v[0].version) << v[0].why_unknown;
    EXPECT_EQ(v[0].version->value, "rows=3;hash=42;schema=0123456789abcdef0123456789abcdef");
    EXPECT_TRUE(v[0].version->covers_schema);
    ProbeAnswer other = a;
    other.rows["content"]["content_schema"] = "f123456789abcdef0123456789abcdef";
    EXPECT_NE(*provider->versions(report_with("s", other), "t")[0].version, *v[0].version);
    // Without the column (NULL: the relation's columns weren't found) the rows alone, not covering.
    auto rows_only = provider->versions(report_with("s", ok("3", "42")), "t");
    ASSERT_TRUE(rows_only[0].version);
    EXPECT_FALSE(rows_only[0].version->covers_schema);
    EXPECT_NE(*rows_only[0].version, *v[0].version);
    for (const char* bad : {"", "xyz", "0123456789ABCDEF0123456789ABCDEF", "0123"}) {
      ProbeAnswer b = ok("3", "42");
      b.rows["content"]["content_schema"] = bad;
      EXPECT_FALSE(provider->versions(report_with("s", b), "t")[0].version) << bad;
    }
  }
  EXPECT_FALSE(make_spark_content_versions()->content_covers_schema());
}

TEST(ContentVersions, MissingSkippedOrMalformedAnswersAreUnknownWithAReason) {
  auto provider = make_duckdb_content_versions();
  ProbeAnswer missing;
  missing.status = ProbeAnswer::Status::missing;
  missing.why = "relation shop.raw.orders does not exist";
  auto v = provider->versions(report_with("s", missing), "t");
  EXPECT_FALSE(v[0].version);
  EXPECT_NE(v[0].why_unknown.find("does not exist"), std::string::npos);
  for (auto bad : {ok("", "1"), ok("12", "abc"), ok("1x", "2")}) {
    auto u = provider->versions(report_with("s", bad), "t");
    EXPECT_FALSE(u[0].version) << u[0].why_unknown;
  }
  ProbeAnswer no_row;
  no_row.status = ProbeAnswer::Status::ok;
  EXPECT_FALSE(provider->versions(report_with("s", no_row), "t")[0].version);
}

}  // namespace
}  // namespace ods::content
