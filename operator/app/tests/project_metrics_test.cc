#include "project_metrics.h"

#include <gtest/gtest.h>

#include "../../telemetry/tests/metrics_scrape.h"
#include "ods/control/time_text.h"

namespace ods::operator_app {
namespace {

using kube::Json;
using telemetry::testing::sample;
using Type = kube::WatchEvent::Type;

// The tests' "now": a Tuesday.
ods::TimePoint test_now() { return *control::parse_time("2026-12-01T10:00:00Z"); }

Json project(const std::string& schedule, bool suspend = false) {
  Json p{{"metadata", {{"namespace", "analytics"}, {"name", "shop"}}}, {"spec", {{"suspend", suspend}}}};
  if (!schedule.empty()) p["spec"]["schedule"] = schedule;
  return p;
}

Json run(const std::string& phase, const std::string& completed) {
  return {{"metadata", {{"namespace", "analytics"}, {"name", "shop-1"}}},
          {"spec", {{"projectRef", {{"name", "shop"}}}}},
          {"status", {{"phase", phase}, {"completionTime", completed}}}};
}

constexpr const char* kPeriod = "ods_schedule_period_seconds{project=\"analytics/shop\"}";
constexpr const char* kLastSuccess = "ods_last_successful_run_timestamp_seconds{project=\"analytics/shop\"}";

TEST(SchedulePeriodTest, IsTheLongestGapBetweenTheNextTicks) {
  const auto now = test_now();
  EXPECT_EQ(schedule_period_seconds("@hourly", now), 3600);
  EXPECT_EQ(schedule_period_seconds("*/15 * * * *", now), 900);
  EXPECT_EQ(schedule_period_seconds("0 6 * * *", now), 86400);
  EXPECT_EQ(schedule_period_seconds("0 6 * * 1-5", now), 3 * 86400);  // Friday to Monday
  EXPECT_EQ(schedule_period_seconds("99 * * * *", now), std::nullopt);
}

TEST(ProjectMetricsTest, ASeenProjectHasItsCountersAtZeroAndItsSchedulePeriod) {
  telemetry::OperatorMetrics metrics;
  FixedClock clock(test_now());
  ProjectMetrics watcher(metrics, clock);
  watcher.project_event(Type::added, project("0 * * * *"));
  const std::string text = metrics.scrape_text();
  EXPECT_EQ(sample(text, kPeriod), 3600);
  EXPECT_EQ(sample(text, "ods_runs_total{outcome=\"succeeded\",project=\"analytics/shop\"}"), 0);
  EXPECT_EQ(sample(text, "ods_runs_total{outcome=\"failed\",project=\"analytics/shop\"}"), 0);
  EXPECT_EQ(sample(text, "ods_nodes_total{action=\"build\",project=\"analytics/shop\",reason=\"never_built\"}"), 0);
  EXPECT_EQ(sample(text, "ods_nodes_total{action=\"reuse\",project=\"analytics/shop\",reason=\"unchanged\"}"), 0);
  EXPECT_EQ(sample(text, "ods_build_seconds_saved_total{project=\"analytics/shop\"}"), 0);
  EXPECT_EQ(sample(text, "ods_build_seconds_total{project=\"analytics/shop\"}"), 0);
}

TEST(ProjectMetricsTest, ASuspendedOrUnscheduledProjectHasNoSchedulePeriod) {
  telemetry::OperatorMetrics metrics;
  FixedClock clock(test_now());
  ProjectMetrics watcher(metrics, clock);
  watcher.project_event(Type::added, project("0 * * * *"));
  watcher.project_event(Type::modified, project("0 * * * *", true));
  EXPECT_EQ(sample(metrics.scrape_text(), kPeriod), std::nullopt);
  watcher.project_event(Type::modified, project("*/30 * * * *"));
  EXPECT_EQ(sample(metrics.scrape_text(), kPeriod), 1800);
  watcher.project_event(Type::modified, project(""));
  EXPECT_EQ(sample(metrics.scrape_text(), kPeriod), std::nullopt);
}

TEST(ProjectMetricsTest, TheLastSuccessIsTheNewestSucceededRunsCompletion) {
  telemetry::OperatorMetrics metrics;
  FixedClock clock(test_now());
  ProjectMetrics watcher(metrics, clock);
  watcher.run_event(Type::added, run("Succeeded", "2026-12-01T09:00:00Z"));
  const double nine = 1796115600;  // 2026-12-01T09:00:00Z
  EXPECT_EQ(sample(metrics.scrape_text(), kLastSuccess), nine);
  watcher.run_event(Type::added, run("Succeeded", "2026-12-01T08:00:00Z"));  // an older one, listed later
  watcher.run_event(Type::modified, run("Failed", "2026-12-01T09:30:00Z"));
  watcher.run_event(Type::modified, run("Building", ""));
  EXPECT_EQ(sample(metrics.scrape_text(), kLastSuccess), nine);
  watcher.run_event(Type::modified, run("Succeeded", "2026-12-01T09:45:00Z"));
  EXPECT_EQ(sample(metrics.scrape_text(), kLastSuccess), nine + 45 * 60);
}

TEST(ProjectMetricsTest, ADeletedProjectsSeriesAreRemoved) {
  telemetry::OperatorMetrics metrics;
  FixedClock clock(test_now());
  ProjectMetrics watcher(metrics, clock);
  watcher.project_event(Type::added, project("0 * * * *"));
  watcher.run_event(Type::added, run("Succeeded", "2026-12-01T09:00:00Z"));
  metrics.observe_probe("analytics/shop", "source.shop.raw.orders", 0.2);
  metrics.count_nodes("analytics/other", telemetry::NodeAction::build, "never_built", 2);
  watcher.project_event(Type::deleted, project("0 * * * *"));
  const std::string text = metrics.scrape_text();
  EXPECT_EQ(text.find("project=\"analytics/shop\""), std::string::npos) << text;
  EXPECT_EQ(sample(text, "ods_nodes_total{action=\"build\",project=\"analytics/other\",reason=\"never_built\"}"), 2);
}

}  // namespace
}  // namespace ods::operator_app
