// The choice of a source's data version (ADR-0022 §2): table version, then max_loaded_at, then none.
#include "ods/planner/version_choice.h"

#include <gtest/gtest.h>

namespace ods::planner {
namespace {

DataVersion table() { return {"rows=3;sum=42", Exactness::exact, "duckdb_content", "2026-11-29T12:00:00Z"}; }
DataVersion loaded() { return {"2026-11-29T09:00:00", Exactness::semantic, "sources_json", "2026-11-29T11:00:00Z"}; }

TEST(VersionChoice, TableVersionWinsOverMaxLoadedAt) {
  VersionCandidates c;
  c.table_version = std::optional<DataVersion>(table());
  c.max_loaded_at = loaded();
  auto choice = choose_version("source.shop.raw.orders", c);
  ASSERT_TRUE(choice.version);
  EXPECT_EQ(choice.version->origin, "duckdb_content");
  EXPECT_EQ(choice.strategy, "relation_versions");
}

TEST(VersionChoice, UnknownTableVersionFallsBackToMaxLoadedAtAndSaysWhy) {
  VersionCandidates c;
  c.table_version = std::optional<DataVersion>();
  c.table_why_unknown = "not a Delta table";
  c.max_loaded_at = loaded();
  auto choice = choose_version("source.shop.raw.orders", c);
  ASSERT_TRUE(choice.version);
  EXPECT_EQ(choice.strategy, "source_freshness");
  ASSERT_FALSE(choice.evidence.empty());
  EXPECT_NE(choice.evidence.front().value.find("not a Delta table"), std::string::npos);
}

TEST(VersionChoice, NothingMeansNoneAndTheSourceCountsAsChanged) {
  VersionCandidates c;
  c.freshness_why_unknown = "no loaded_at_field";
  auto choice = choose_version("source.shop.raw.customers", c);
  EXPECT_FALSE(choice.version);
  EXPECT_EQ(choice.strategy, "none");
  ASSERT_EQ(choice.evidence.size(), 3u);
  EXPECT_NE(choice.evidence[0].value.find("not asked"), std::string::npos) << choice.evidence[0].value;
  EXPECT_NE(choice.evidence[1].value.find("no loaded_at_field"), std::string::npos);
}

TEST(VersionChoice, ApplyReplacesTheSourcesVersionAndEvidence) {
  SourceInput s{"source.shop.raw.orders", "raw.orders", "", loaded(), {}, ""};
  apply_version_choice(s, std::optional<DataVersion>(table()), "");
  ASSERT_TRUE(s.version);
  EXPECT_EQ(s.version->origin, "duckdb_content");
  SourceInput u{"source.shop.raw.customers", "raw.customers", "", std::nullopt, {}, ""};
  apply_version_choice(u, std::optional<DataVersion>(), "probe failed: connection refused");
  EXPECT_FALSE(u.version);
}

}  // namespace
}  // namespace ods::planner
