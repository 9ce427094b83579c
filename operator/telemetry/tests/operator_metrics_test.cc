// OperatorMetrics: each feeding call lands in its family with the documented name, type and
// labels (read back from the Prometheus text the endpoint serves).
#include "ods/telemetry/operator_metrics.h"

#include <gtest/gtest.h>

#include <cmath>

#include "metrics_scrape.h"

namespace ods::telemetry {
namespace {

using testing::family_type;
using testing::sample;

TEST(OperatorMetricsTest, EveryFamilyHasItsDocumentedType) {
  OperatorMetrics metrics;
  metrics.observe_probe("shop", "source.shop.raw.orders", 0.02);
  metrics.count_nodes("shop", NodeAction::build, "new_node");
  metrics.set_reuse_ratio("shop", 1, 2);
  metrics.record_run("shop", "succeeded", 12);
  metrics.count_unknown_data_versions("shop", 1);
  metrics.set_run_sources("shop", {{"exact", 1}});
  metrics.record_reconcile("dbtrun", ReconcileResult::error, 0.1);
  metrics.set_queue_depth("dbtrun", 1);
  metrics.count_queue_add("dbtrun");
  metrics.count_queue_retry("dbtrun");
  const std::string text = metrics.scrape_text();
  const std::map<std::string, std::string> expected = {
      {"ods_probe_latency_seconds", "histogram"},
      {"ods_nodes_total", "counter"},
      {"ods_reuse_ratio", "gauge"},
      {"ods_run_duration_seconds", "histogram"},
      {"ods_runs_total", "counter"},
      {"ods_unknown_data_versions_total", "counter"},
      {"ods_run_sources", "gauge"},
      {"ods_leader", "gauge"},
      {"controller_runtime_reconcile_total", "counter"},
      {"controller_runtime_reconcile_errors_total", "counter"},
      {"controller_runtime_reconcile_time_seconds", "histogram"},
      {"workqueue_depth", "gauge"},
      {"workqueue_adds_total", "counter"},
      {"workqueue_retries_total", "counter"},
  };
  for (const auto& [name, type] : expected) EXPECT_EQ(family_type(text, name), type) << name << " in\n" << text;
}

TEST(OperatorMetricsTest, NodesCountPerProjectActionAndReason) {
  OperatorMetrics metrics;
  metrics.count_nodes("shop", NodeAction::build, "upstream_changed", 3);
  metrics.count_nodes("shop", NodeAction::build, "upstream_changed");
  metrics.count_nodes("shop", NodeAction::reuse, "unchanged", 9);
  metrics.count_nodes("billing", NodeAction::reuse, "unchanged", 2);
  const std::string text = metrics.scrape_text();
  EXPECT_EQ(sample(text, R"(ods_nodes_total{action="build",project="shop",reason="upstream_changed"})"), 4.0);
  EXPECT_EQ(sample(text, R"(ods_nodes_total{action="reuse",project="shop",reason="unchanged"})"), 9.0);
  EXPECT_EQ(sample(text, R"(ods_nodes_total{action="reuse",project="billing",reason="unchanged"})"), 2.0);
  EXPECT_EQ(sample(text, R"(ods_nodes_total{action="build",project="billing",reason="unchanged"})"), std::nullopt);
}

TEST(OperatorMetricsTest, ReuseRatioIsTheLastRunsShare) {
  OperatorMetrics metrics;
  metrics.set_reuse_ratio("shop", 9, 12);
  EXPECT_EQ(sample(metrics.scrape_text(), R"(ods_reuse_ratio{project="shop"})"), 0.75);
  metrics.set_reuse_ratio("shop", 0, 0);
  EXPECT_EQ(sample(metrics.scrape_text(), R"(ods_reuse_ratio{project="shop"})"), 0.0);
}

// ods_run_sources: the last run's sources by exactness, every label set (0 when absent); a
// later run replaces the figures, and removing the project removes them.
TEST(OperatorMetricsTest, RunSourcesAreTheLastRunsSourcesByExactness) {
  OperatorMetrics metrics;
  metrics.set_run_sources("shop", {{"exact", 4}, {"semantic", 2}});
  std::string text = metrics.scrape_text();
  EXPECT_EQ(sample(text, R"(ods_run_sources{exactness="exact",project="shop"})"), 4.0);
  EXPECT_EQ(sample(text, R"(ods_run_sources{exactness="semantic",project="shop"})"), 2.0);
  EXPECT_EQ(sample(text, R"(ods_run_sources{exactness="unknown",project="shop"})"), 0.0);
  EXPECT_EQ(sample(text, R"(ods_run_sources{exactness="proxy",project="shop"})"), 0.0);
  metrics.set_run_sources("shop", {{"exact", 1}, {"unknown", 5}});
  text = metrics.scrape_text();
  EXPECT_EQ(sample(text, R"(ods_run_sources{exactness="exact",project="shop"})"), 1.0);
  EXPECT_EQ(sample(text, R"(ods_run_sources{exactness="semantic",project="shop"})"), 0.0);
  EXPECT_EQ(sample(text, R"(ods_run_sources{exactness="unknown",project="shop"})"), 5.0);
  metrics.remove_project("shop");
  EXPECT_EQ(sample(metrics.scrape_text(), R"(ods_run_sources{exactness="exact",project="shop"})"), std::nullopt);
}

TEST(OperatorMetricsTest, ProbeLatencyIsAHistogramPerProjectAndSource) {
  OperatorMetrics metrics;
  metrics.observe_probe("shop", "source.shop.raw.orders", 0.02);
  metrics.observe_probe("shop", "source.shop.raw.orders", 3.0);
  metrics.observe_probe("shop", "source.shop.raw.customers", 0.2);
  const std::string text = metrics.scrape_text();
  const std::string orders = R"(project="shop",source="source.shop.raw.orders")";
  EXPECT_EQ(sample(text, "ods_probe_latency_seconds_count{" + orders + "}"), 2.0);
  EXPECT_DOUBLE_EQ(sample(text, "ods_probe_latency_seconds_sum{" + orders + "}").value_or(-1), 3.02);
  EXPECT_EQ(sample(text, "ods_probe_latency_seconds_bucket{" + orders + R"(,le="0.025"})"), 1.0);
  EXPECT_EQ(sample(text, "ods_probe_latency_seconds_bucket{" + orders + R"(,le="5"})"), 2.0);
  EXPECT_EQ(sample(text, "ods_probe_latency_seconds_bucket{" + orders + R"(,le="+Inf"})"), 2.0);
  EXPECT_EQ(sample(text, R"(ods_probe_latency_seconds_count{project="shop",source="source.shop.raw.customers"})"), 1.0);
}

TEST(OperatorMetricsTest, RunsCountAndTimePerOutcome) {
  OperatorMetrics metrics;
  metrics.record_run("shop", "succeeded", 30);
  metrics.record_run("shop", "succeeded", 50);
  metrics.record_run("shop", "failed", 5);
  metrics.count_unknown_data_versions("shop", 2);
  metrics.count_unknown_data_versions("shop", 1);
  const std::string text = metrics.scrape_text();
  EXPECT_EQ(sample(text, R"(ods_runs_total{outcome="succeeded",project="shop"})"), 2.0);
  EXPECT_EQ(sample(text, R"(ods_runs_total{outcome="failed",project="shop"})"), 1.0);
  EXPECT_EQ(sample(text, R"(ods_run_duration_seconds_sum{outcome="succeeded",project="shop"})"), 80.0);
  EXPECT_EQ(sample(text, R"(ods_run_duration_seconds_bucket{outcome="succeeded",project="shop",le="30"})"), 1.0);
  EXPECT_EQ(sample(text, R"(ods_unknown_data_versions_total{project="shop"})"), 3.0);
}

TEST(OperatorMetricsTest, ControllerRuntimeNamesCountReconcilesErrorsAndTheQueue) {
  OperatorMetrics metrics;
  metrics.record_reconcile("dbtrun", ReconcileResult::success, 0.01);
  metrics.record_reconcile("dbtrun", ReconcileResult::error, 0.5);
  metrics.record_reconcile("dbtrun", ReconcileResult::error, 0.5);
  metrics.record_reconcile("dbtproject", ReconcileResult::requeue_after, 0.02);
  metrics.set_queue_depth("dbtrun", 4);
  metrics.set_queue_depth("dbtrun", 2);
  metrics.count_queue_add("dbtrun");
  metrics.count_queue_add("dbtrun");
  metrics.count_queue_retry("dbtrun");
  const std::string text = metrics.scrape_text();
  EXPECT_EQ(sample(text, R"(controller_runtime_reconcile_total{controller="dbtrun",result="success"})"), 1.0);
  EXPECT_EQ(sample(text, R"(controller_runtime_reconcile_total{controller="dbtrun",result="error"})"), 2.0);
  EXPECT_EQ(sample(text, R"(controller_runtime_reconcile_total{controller="dbtproject",result="requeue_after"})"), 1.0);
  EXPECT_EQ(sample(text, R"(controller_runtime_reconcile_errors_total{controller="dbtrun"})"), 2.0);
  EXPECT_EQ(sample(text, R"(controller_runtime_reconcile_errors_total{controller="dbtproject"})"), std::nullopt);
  EXPECT_EQ(sample(text, R"(controller_runtime_reconcile_time_seconds_count{controller="dbtrun"})"), 3.0);
  EXPECT_EQ(sample(text, R"(workqueue_depth{name="dbtrun"})"), 2.0);
  EXPECT_EQ(sample(text, R"(workqueue_adds_total{name="dbtrun"})"), 2.0);
  EXPECT_EQ(sample(text, R"(workqueue_retries_total{name="dbtrun"})"), 1.0);
}

TEST(OperatorMetricsTest, LeaderGaugeFollowsTheLease) {
  OperatorMetrics metrics;
  EXPECT_EQ(sample(metrics.scrape_text(), "ods_leader"), 0.0);
  metrics.set_leader(true);
  EXPECT_EQ(sample(metrics.scrape_text(), "ods_leader"), 1.0);
  metrics.set_leader(false);
  EXPECT_EQ(sample(metrics.scrape_text(), "ods_leader"), 0.0);
}

// add_project's counters (kept per project apart from prometheus-cpp, project_counters.h) scrape
// as the other series do: at 0 from add_project, counted, gone at remove_project; a project never
// added has only the series it counted.
TEST(OperatorMetricsTest, AProjectsCountersAppearAtZeroCountAndGoAway) {
  OperatorMetrics metrics;
  metrics.add_project("shop");
  metrics.add_project("shop");  // idempotent
  std::string text = metrics.scrape_text();
  EXPECT_EQ(sample(text, R"(ods_runs_total{outcome="succeeded",project="shop"})"), 0.0);
  EXPECT_EQ(sample(text, R"(ods_runs_total{outcome="failed",project="shop"})"), 0.0);
  EXPECT_EQ(sample(text, R"(ods_nodes_total{action="reuse",project="shop",reason="unchanged"})"), 0.0);
  EXPECT_EQ(sample(text, R"(ods_build_seconds_saved_total{project="shop"})"), 0.0);
  EXPECT_EQ(family_type(text, "ods_build_seconds_total"), "counter");

  metrics.record_run("shop", "succeeded", 5);
  metrics.record_run("shop", "cancelled", 5);  // an outcome add_project does not make appear
  metrics.count_build_seconds("shop", 12.5, 30);
  metrics.count_build_seconds("shop", -1, std::nan(""));  // counters never go down (nor to NaN)
  metrics.count_nodes("shop", NodeAction::reuse, "unchanged", 4);
  metrics.count_nodes("shop", NodeAction::build, "not_a_catalog_code");
  metrics.count_nodes("billing", NodeAction::reuse, "unchanged", 2);  // never added
  metrics.add_project("shop");                                        // keeps what was counted
  text = metrics.scrape_text();
  EXPECT_EQ(sample(text, R"(ods_runs_total{outcome="succeeded",project="shop"})"), 1.0);
  EXPECT_EQ(sample(text, R"(ods_runs_total{outcome="cancelled",project="shop"})"), 1.0);
  EXPECT_EQ(sample(text, R"(ods_build_seconds_total{project="shop"})"), 12.5);
  EXPECT_EQ(sample(text, R"(ods_build_seconds_saved_total{project="shop"})"), 30.0);
  EXPECT_EQ(sample(text, R"(ods_nodes_total{action="reuse",project="shop",reason="unchanged"})"), 4.0);
  EXPECT_EQ(sample(text, R"(ods_nodes_total{action="build",project="shop",reason="not_a_catalog_code"})"), 1.0);
  EXPECT_EQ(sample(text, R"(ods_nodes_total{action="reuse",project="billing",reason="unchanged"})"), 2.0);
  EXPECT_EQ(sample(text, R"(ods_runs_total{outcome="succeeded",project="billing"})"), std::nullopt);
  EXPECT_EQ(sample(text, R"(ods_build_seconds_total{project="billing"})"), std::nullopt);

  metrics.remove_project("shop");
  text = metrics.scrape_text();
  EXPECT_EQ(text.find("project=\"shop\""), std::string::npos) << text;
  EXPECT_EQ(sample(text, R"(ods_nodes_total{action="reuse",project="billing",reason="unchanged"})"), 2.0);
}

TEST(OperatorMetricsTest, LabelValuesAreEscaped) {
  OperatorMetrics metrics;
  metrics.count_nodes("a\"b", NodeAction::reuse, "x\\y");
  EXPECT_EQ(sample(metrics.scrape_text(), R"(ods_nodes_total{action="reuse",project="a\"b",reason="x\\y"})"), 1.0);
}

}  // namespace
}  // namespace ods::telemetry
