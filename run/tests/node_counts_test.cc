// A build's nodes counted from dbt's statuses, and the build's outcome.
#include "ods/run/node_counts.h"

#include <gtest/gtest.h>

namespace ods::run {
namespace {

TEST(NodeCounts, SuccessIsBuiltSkippedIsSkippedAnyOtherStatusIsFailed) {
  const auto counts = count_node_results({{"model.shop.a", "success"},
                                          {"model.shop.b", "success"},
                                          {"model.shop.c", "skipped"},
                                          {"model.shop.d", "error"},
                                          {"model.shop.e", "fail"},
                                          {"model.shop.f", "runtime error"}});
  EXPECT_EQ(counts.built, 2);
  EXPECT_EQ(counts.skipped, 1);
  EXPECT_EQ(counts.failed, 3);
}

TEST(NodeCounts, NoStatusesCountNothing) {
  const auto counts = count_node_results({});
  EXPECT_EQ(counts.built + counts.skipped + counts.failed, 0);
}

TEST(NodeCounts, AnUnknownOrEmptyStatusIsFailedNeverBuilt) {
  EXPECT_EQ(node_result(""), NodeResult::failed);
  EXPECT_EQ(node_result("Success"), NodeResult::failed) << "dbt's statuses are lower case";
  EXPECT_EQ(node_result("success"), NodeResult::built);
  EXPECT_EQ(node_result("skipped"), NodeResult::skipped);
}

TEST(BuildOutcome, SuccessOnExitZeroElsePartialWhenSomethingBuiltElseFailed) {
  EXPECT_EQ(build_outcome(0, 0), "success");
  EXPECT_EQ(build_outcome(0, 3), "success");
  EXPECT_EQ(build_outcome(1, 3), "partial");
  EXPECT_EQ(build_outcome(1, 0), "failed");
  EXPECT_EQ(build_outcome(2, 0), "failed");
}

}  // namespace
}  // namespace ods::run
