// Freshness policies from meta.ods.
#include "freshness_policy.h"

#include <gtest/gtest.h>

namespace ods::dbt::internal {
namespace {

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
