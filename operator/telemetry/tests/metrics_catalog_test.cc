// The metric families, their reference (docs/metrics.md) and the Grafana dashboard of the Helm
// chart (helm/ods/dashboards/ods.json) name the same metrics: a family without documentation,
// or a panel querying a metric nobody exports, fails here.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "harness/source_paths.h"
#include "ods/telemetry/operator_metrics.h"

namespace ods::telemetry {
namespace {

std::string read_source_file(const std::string& relative) {
  std::ifstream in(ods::testing::source_dir() / relative);
  EXPECT_TRUE(in) << relative;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The families OperatorMetrics exports (each fed once so labelled families show up).
std::set<std::string> exported_families() {
  OperatorMetrics metrics;
  metrics.observe_probe("p", "s", 1);
  metrics.count_nodes("p", NodeAction::build, "r");
  metrics.set_reuse_ratio("p", 1, 1);
  metrics.record_run("p", "succeeded", 1);
  metrics.count_unknown_data_versions("p", 1);
  metrics.set_run_sources("p", {{"exact", 1}});
  metrics.count_build_seconds("p", 2, 1);
  metrics.set_last_success("p", 1);
  metrics.set_schedule_period("p", 60);
  metrics.record_reconcile("c", ReconcileResult::error, 1);
  metrics.set_queue_depth("q", 1);
  metrics.count_queue_add("q");
  metrics.count_queue_retry("q");
  std::set<std::string> names;
  const std::string text = metrics.scrape_text();
  const std::regex type_line(R"(# TYPE (\S+) )");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), type_line); it != std::sregex_iterator(); ++it)
    names.insert((*it)[1]);
  return names;
}

TEST(MetricsCatalogTest, EveryFamilyIsDocumentedInDocsMetrics) {
  const std::set<std::string> families = exported_families();
  ASSERT_EQ(families.size(), 18U);
  const std::string docs = read_source_file("docs/metrics.md");
  for (const auto& name : families)
    EXPECT_NE(docs.find("| `" + name + "` |"), std::string::npos) << name << " has no row in docs/metrics.md";
}

TEST(MetricsCatalogTest, TheDashboardQueriesOnlyExportedMetrics) {
  const std::set<std::string> families = exported_families();
  const auto dashboard = nlohmann::json::parse(read_source_file("helm/ods/dashboards/ods.json"));
  const std::regex metric(R"(\b((?:ods|controller_runtime|workqueue)_[a-z_]+?)(?:_bucket|_sum|_count)?\b)");
  std::set<std::string> used;
  for (const auto& panel : dashboard["panels"])
    for (const auto& target : panel.value("targets", nlohmann::json::array())) {
      const std::string expr = target["expr"];
      for (auto it = std::sregex_iterator(expr.begin(), expr.end(), metric); it != std::sregex_iterator(); ++it) {
        EXPECT_TRUE(families.contains((*it)[1])) << panel["title"] << " queries " << (*it)[1] << ": " << expr;
        used.insert((*it)[1]);
      }
    }
  for (const std::string name : {"ods_runs_total", "ods_nodes_total", "ods_reuse_ratio", "ods_probe_latency_seconds",
                                 "controller_runtime_reconcile_errors_total", "workqueue_depth",
                                 "ods_build_seconds_saved_total", "ods_build_seconds_total", "ods_run_sources"})
    EXPECT_TRUE(used.contains(name)) << "the dashboard has no panel on " << name;
}

}  // namespace
}  // namespace ods::telemetry
