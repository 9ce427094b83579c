// Durations for sentences.
#include "ods/planner/duration_text.h"

#include <gtest/gtest.h>

using namespace ods::planner;

namespace {

TEST(DescribeDuration, AtMostTwoUnits) {
  EXPECT_EQ(describe_duration(0), "0s");
  EXPECT_EQ(describe_duration(45), "45s");
  EXPECT_EQ(describe_duration(60), "1m");
  EXPECT_EQ(describe_duration(125), "2m 5s");
  EXPECT_EQ(describe_duration(3600), "1h");
  EXPECT_EQ(describe_duration(7500), "2h 5m");
  EXPECT_EQ(describe_duration(7505), "2h 5m");
  EXPECT_EQ(describe_duration(86400), "1d");
  EXPECT_EQ(describe_duration(3 * 86400 + 4 * 3600), "3d 4h");
  EXPECT_EQ(describe_duration(86400 + 3600 + 60 + 1), "1d 1h");
  EXPECT_EQ(describe_duration(-45), "45s");
}

}  // namespace
