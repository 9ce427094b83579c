#include "timestamps.h"

#include <gtest/gtest.h>

#include "freshness_policy.h"

namespace ods::dbt::internal {
namespace {

TEST(Timestamps, ParsesWhatDbtWrites) {
  EXPECT_EQ(normalize_iso8601("2026-01-02T11:00:00+00:00"), "2026-01-02T11:00:00.000000Z");
  EXPECT_EQ(normalize_iso8601("2026-11-29T20:12:38.727495Z"), "2026-11-29T20:12:38.727495Z");
  EXPECT_EQ(normalize_iso8601("2026-11-29 20:12:38"), "2026-11-29T20:12:38.000000Z");
  EXPECT_EQ(normalize_iso8601("2026-01-02T13:30:00.5+02:30"), "2026-01-02T11:00:00.500000Z");
  EXPECT_EQ(normalize_iso8601("1969-12-31T23:59:59.999999Z"), "1969-12-31T23:59:59.999999Z");
  EXPECT_LT(*parse_iso8601("2026-11-29T20:49:47.968357+00:00"), *parse_iso8601("2026-11-29T20:49:50.980065Z"));
}

TEST(Timestamps, RejectsOtherText) {
  for (const char* bad : {"", "yesterday", "2026-02-30T00:00:00Z", "2026-01-02T25:00:00Z", "2026-01-02T11:00:00Zjunk",
                          "2026-01-02T11:00:00.Z", "2026-01-02T11:00:00+0"}) {
    EXPECT_FALSE(parse_iso8601(bad).has_value()) << bad;
  }
}

TEST(FreshnessPolicy, Durations) {
  EXPECT_EQ(parse_duration_seconds("30m"), 1800);
  EXPECT_EQ(parse_duration_seconds("2h"), 7200);
  EXPECT_EQ(parse_duration_seconds("1d"), 86400);
  EXPECT_EQ(parse_duration_seconds("45s"), 45);
  EXPECT_EQ(parse_duration_seconds("600"), 600);
  for (const char* bad : {"", "m", "-5m", "1.5h", "2w", "1 h"}) EXPECT_FALSE(parse_duration_seconds(bad)) << bad;
}

TEST(FreshnessPolicy, NotAMapping) {
  std::vector<std::string> warnings;
  const Json ods = "2h";
  EXPECT_FALSE(read_freshness_policy(&ods, "model.x", warnings).allows_reuse());
  const Json negative = Json::parse(R"({"lag_tolerance": -5})");
  EXPECT_FALSE(read_freshness_policy(&negative, "model.x", warnings).allows_reuse());
  EXPECT_TRUE(read_freshness_policy(nullptr, "model.x", warnings).allows_reuse());
}

}  // namespace
}  // namespace ods::dbt::internal
