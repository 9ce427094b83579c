#include "run_phase_writer.h"

#include <gtest/gtest.h>

namespace ods::operator_app {
namespace {

using kube::Json;

struct Written {
  kube::ObjectKey key;
  std::string phase;
  Json summary;
};

class RecordingStatus final : public control::RunStatusWriter {
 public:
  Result<Json> set_phase(const kube::ObjectKey& key, std::string_view phase, const Json& summary) override {
    written.push_back({key, std::string(phase), summary});
    return Json::object();
  }
  std::vector<Written> written;
};

class CollectedLines final : public telemetry::LogOutput {
 public:
  void write_line(std::string_view line) override { lines.emplace_back(line); }
  std::vector<std::string> lines;
};

callback::RunSummary planned_summary() {
  callback::RunSummary s;
  s.ns = "analytics";
  s.name = "shop-1";
  s.run_uid = "uid-1";
  s.scope = "k8s:analytics/shop:shop/dev";
  s.planned_build = 3;
  s.planned_reuse = 9;
  s.build_reasons = {{"new_upstream_data", 2}, {"reads_run_context", 1}};
  s.reuse_reasons = {{"unchanged", 9}};
  s.probe_seconds = {{"source.shop.raw.orders", 0.25}, {"source.shop.raw.customers", 0.5}};
  s.unknown_data_versions = 1;
  s.sources_by_exactness = {{"exact", 1}, {"unknown", 1}};
  return s;
}

double sample(const std::string& text, const std::string& series) {
  const auto at = text.find("\n" + series + " ");
  return at == std::string::npos ? -1 : std::stod(text.substr(at + series.size() + 2));
}

class RunPhaseWriterTest : public ::testing::Test {
 protected:
  RecordingStatus status_;
  telemetry::OperatorMetrics metrics_;
  std::shared_ptr<CollectedLines> lines_ = std::make_shared<CollectedLines>();
  telemetry::Logger log_{"test", telemetry::LogLevel::info, lines_};
  RunPhaseWriter writer_{status_, metrics_, log_,
                         [](const kube::ObjectKey& run) { return run.namespace_name + "/shop"; }};
};

TEST_F(RunPhaseWriterTest, BuildingWritesThePlanAndCountsItOnce) {
  writer_.on_phase(callback::RunPhase::building, planned_summary());
  writer_.on_phase(callback::RunPhase::building, planned_summary());  // a pod repeating its request
  ASSERT_EQ(status_.written.size(), 2u);
  EXPECT_EQ(status_.written[0].key, (kube::ObjectKey{"analytics", "shop-1"}));
  EXPECT_EQ(status_.written[0].phase, "Building");
  // The per-reason counts go to the status too (kubectl describe dbtrun shows them).
  EXPECT_EQ(status_.written[0].summary["plan"],
            (Json{{"total", 12},
                  {"built", 3},
                  {"reused", 9},
                  {"buildReasons", {{"new_upstream_data", 2}, {"reads_run_context", 1}}},
                  {"reuseReasons", {{"unchanged", 9}}}}));
  EXPECT_EQ(status_.written[0].summary["probe"]["sources"], 2);
  EXPECT_EQ(status_.written[0].summary["probe"]["unknown"], 1);
  const std::string text = metrics_.scrape_text();
  EXPECT_EQ(sample(text, "ods_nodes_total{action=\"build\",project=\"analytics/shop\",reason=\"new_upstream_data\"}"),
            2);
  EXPECT_EQ(sample(text, "ods_nodes_total{action=\"reuse\",project=\"analytics/shop\",reason=\"unchanged\"}"), 9);
  EXPECT_EQ(
      sample(text, "ods_probe_latency_seconds_count{project=\"analytics/shop\",source=\"source.shop.raw.orders\"}"), 1);
  EXPECT_EQ(sample(text, "ods_unknown_data_versions_total{project=\"analytics/shop\"}"), 1);
  EXPECT_EQ(sample(text, "ods_reuse_ratio{project=\"analytics/shop\"}"), 0.75);
  EXPECT_EQ(sample(text, "ods_run_sources{exactness=\"exact\",project=\"analytics/shop\"}"), 1);
  EXPECT_EQ(sample(text, "ods_run_sources{exactness=\"unknown\",project=\"analytics/shop\"}"), 1);
  EXPECT_EQ(sample(text, "ods_run_sources{exactness=\"semantic\",project=\"analytics/shop\"}"), 0);
  EXPECT_EQ(lines_->lines.size(), 2u);
}

TEST_F(RunPhaseWriterTest, TheOutcomeWritesTheRecordedCountsAndTheRun) {
  callback::RunSummary s = planned_summary();
  s.outcome = "success";
  s.built = 3;
  s.reused = 9;
  s.duration_seconds = 42;
  writer_.on_phase(callback::RunPhase::succeeded, s);
  ASSERT_EQ(status_.written.size(), 1u);
  EXPECT_EQ(status_.written[0].phase, "Succeeded");
  EXPECT_EQ(status_.written[0].summary["plan"]["total"], 12);
  EXPECT_EQ(status_.written[0].summary["plan"]["built"], 3);
  EXPECT_EQ(status_.written[0].summary["plan"]["reused"], 9);
  EXPECT_EQ(sample(metrics_.scrape_text(), "ods_runs_total{outcome=\"succeeded\",project=\"analytics/shop\"}"), 1);

  s.run_uid = "uid-2";
  s.outcome = "failed";
  s.message = "dbt build failed: 1 error";
  writer_.on_phase(callback::RunPhase::failed, s);
  EXPECT_EQ(status_.written[1].summary["reason"], "BuildFailed");
  EXPECT_EQ(status_.written[1].summary["message"], "dbt build failed: 1 error");
  EXPECT_EQ(sample(metrics_.scrape_text(), "ods_runs_total{outcome=\"failed\",project=\"analytics/shop\"}"), 1);
}

}  // namespace
}  // namespace ods::operator_app
