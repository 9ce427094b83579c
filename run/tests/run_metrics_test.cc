// A scope's run metrics: a run added to the totals, carried through the ledger entry's JSON and
// found again by the next run, and written in both text formats.
#include "ods/run/run_metrics.h"

#include <gtest/gtest.h>

#include "ods/run/run_details.h"
#include "ods/state/stores.h"

namespace ods::run {
namespace {

RunContribution run_of(const std::string& outcome, double seconds, std::uint64_t reused, std::uint64_t built) {
  RunContribution c;
  c.outcome = outcome;
  c.seconds = seconds;
  c.finished_at = 1000 + seconds;
  c.nodes[{"reuse", "unchanged"}] = reused;
  c.nodes[{"build", "fingerprint_changed"}] = built;
  c.reused = reused;
  c.planned = reused + built;
  c.build_seconds = 2.5;
  c.build_seconds_saved = 4;
  c.unknown_data_versions = 1;
  return c;
}

TEST(RunMetrics, RunsAddUpAndTheGaugesAreTheLastRuns) {
  RunMetrics m = add_run({}, run_of("succeeded", 12, 0, 4));
  m = add_run(m, run_of("succeeded", 3, 3, 1));
  m = add_run(m, run_of("failed", 7000, 1, 3));
  EXPECT_EQ(m.runs.at("succeeded"), 2u);
  EXPECT_EQ(m.runs.at("failed"), 1u);
  EXPECT_EQ((m.nodes.at({"reuse", "unchanged"})), 4u);
  EXPECT_EQ((m.nodes.at({"build", "fingerprint_changed"})), 8u);
  EXPECT_EQ(m.unknown_data_versions, 3u);
  EXPECT_DOUBLE_EQ(m.build_seconds, 7.5);
  EXPECT_DOUBLE_EQ(m.build_seconds_saved, 12);
  EXPECT_DOUBLE_EQ(*m.reuse_ratio, 0.25);
  EXPECT_DOUBLE_EQ(*m.last_success, 1003) << "the failed run is not a success";
  const DurationHistogram& ok = m.durations.at("succeeded");
  EXPECT_EQ(ok.count, 2u);
  EXPECT_DOUBLE_EQ(ok.sum, 15);
  EXPECT_EQ(ok.buckets[0], 0u);                         // le 1
  EXPECT_EQ(ok.buckets[1], 1u);                         // le 5: the 3 s run
  EXPECT_EQ(ok.buckets[3], 2u);                         // le 30: both, cumulative
  EXPECT_EQ(m.durations.at("failed").buckets[10], 0u);  // le 3600
  EXPECT_EQ(m.durations.at("failed").buckets[11], 1u);  // le 7200
}

TEST(RunMetrics, TheLedgerCarriesTheTotalsToTheNextRun) {
  auto store = state::make_memory_store();
  EXPECT_TRUE(latest_metrics(*store, "shop/prod")->runs.empty()) << "no run yet";
  RunDetails details;
  details.recorded_by = "ods state run";
  details.metrics = add_run({}, run_of("succeeded", 12, 2, 2));
  ASSERT_TRUE(store->append_run({"r1", "shop/prod", "t", "t", "success", "", "{}", to_json(details), std::nullopt}));
  RunDetails by_someone_else;  // the operator, `ods state record`: no metrics
  by_someone_else.recorded_by = "ods state record";
  ASSERT_TRUE(
      store->append_run({"r2", "shop/prod", "t", "t", "success", "", "{}", to_json(by_someone_else), std::nullopt}));
  auto found = latest_metrics(*store, "shop/prod");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(to_json(*found), to_json(*details.metrics)) << "read back as written, past the entry without";
  EXPECT_TRUE(latest_metrics(*store, "shop/dev")->runs.empty()) << "per scope";
}

TEST(RunMetrics, ReadingIsLenient) {
  const RunMetrics m = metrics_from_json(nlohmann::json::parse(
      R"({"runs": {"succeeded": "x", "failed": 2}, "nodes": [["build"], ["reuse", "unchanged", 3]],
          "durations": {"failed": {"buckets": [1, 2], "count": 1, "sum": 9}}, "reuse_ratio": "high"})"));
  EXPECT_TRUE(m.runs.empty()) << "a map with a bad value is left empty";
  EXPECT_EQ(m.nodes.size(), 1u);
  EXPECT_EQ(m.durations.at("failed").buckets.size(), kRunDurationBucketCount) << "wrong bucket count ignored";
  EXPECT_FALSE(m.reuse_ratio.has_value());
}

TEST(RunMetrics, OpenMetricsNamesCountersWithoutTotalAndEndsWithEof) {
  RunMetrics m = add_run({}, run_of("succeeded", 12, 3, 1));
  const std::string text = metrics_text(m, "shop/\"prod\"", MetricsFormat::openmetrics);
  EXPECT_TRUE(text.ends_with("# EOF\n")) << text;
  EXPECT_NE(text.find("# TYPE ods_runs counter\n"), std::string::npos) << text;
  EXPECT_NE(text.find("ods_runs_total{project=\"shop/\\\"prod\\\"\",outcome=\"succeeded\"} 1\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("ods_runs_total{project=\"shop/\\\"prod\\\"\",outcome=\"failed\"} 0\n"), std::string::npos);
  EXPECT_NE(
      text.find("ods_run_duration_seconds_bucket{project=\"shop/\\\"prod\\\"\",outcome=\"succeeded\",le=\"30.0\"} 1"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("le=\"+Inf\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("ods_nodes_total{project=\"shop/\\\"prod\\\"\",action=\"reuse\",reason=\"unchanged\"} 3\n"),
            std::string::npos);
  EXPECT_NE(text.find("ods_reuse_ratio{project=\"shop/\\\"prod\\\"\"} 0.75\n"), std::string::npos) << text;
  EXPECT_NE(text.find("# TYPE ods_last_successful_run_timestamp_seconds gauge\n"), std::string::npos);

  const std::string prom = metrics_text(m, "shop/prod", MetricsFormat::prometheus);
  EXPECT_EQ(prom.find("# EOF"), std::string::npos);
  EXPECT_NE(prom.find("# TYPE ods_runs_total counter\n"), std::string::npos) << prom;
  EXPECT_NE(prom.find("# TYPE ods_build_seconds_saved_total counter\n"), std::string::npos) << prom;
}

TEST(RunMetrics, ThePlansPartCountsEntriesByFirstReasonAndSourcesWithoutVersion) {
  planner::ExecutionPlan plan;
  plan.entries.push_back({});
  plan.entries.back().action = planner::Action::reuse;
  plan.entries.back().reasons = {{"unchanged", ""}, {"other", ""}};
  plan.entries.push_back({});
  plan.entries.back().action = planner::Action::build;
  plan.entries.back().reasons = {{"no_prior_state", ""}};
  planner::ProjectInputs inputs;
  inputs.sources.resize(3);
  inputs.sources[1].version = planner::DataVersion{};
  const RunContribution c = plan_contribution(plan, inputs);
  EXPECT_EQ((c.nodes.at({"reuse", "unchanged"})), 1u);
  EXPECT_EQ((c.nodes.at({"build", "no_prior_state"})), 1u);
  EXPECT_EQ(c.reused, 1u);
  EXPECT_EQ(c.planned, 2u);
  EXPECT_EQ(c.unknown_data_versions, 2u);
}

// ods_run_sources (issue 38: exactness per source in the metrics): the last run's sources by the
// exactness of their chosen version, every label written, carried through the ledger's JSON.
TEST(RunMetrics, TheLastRunsSourcesAreCountedByExactness) {
  planner::ProjectInputs inputs;
  inputs.sources.resize(5);
  inputs.sources[0].version = planner::DataVersion{"v", planner::Exactness::exact, "duckdb_content", "", false};
  inputs.sources[1].version = planner::DataVersion{"v", planner::Exactness::exact, "postgres_content", "", false};
  inputs.sources[2].version = planner::DataVersion{"v", planner::Exactness::semantic, "postgres_catalog", "", false};
  inputs.sources[3].version = planner::DataVersion{};  // a version of exactness none: unknown
  const std::map<std::string, std::uint64_t> expected{
      {"exact", 2}, {"semantic", 1}, {"proxy", 0}, {"inferred", 0}, {"unknown", 2}};
  EXPECT_EQ(sources_by_exactness(inputs), expected);
  EXPECT_EQ(plan_contribution({}, inputs).sources, expected);

  RunMetrics none;
  EXPECT_EQ(metrics_text(none, "shop/prod", MetricsFormat::prometheus).find("ods_run_sources"), std::string::npos)
      << "no gauge before a run with it";
  RunContribution first = run_of("succeeded", 12, 3, 1);
  first.sources = expected;
  RunContribution second = run_of("failed", 5, 0, 4);
  second.sources = {{"exact", 0}, {"semantic", 3}, {"proxy", 0}, {"inferred", 0}, {"unknown", 0}};
  const RunMetrics m = add_run(add_run({}, first), second);
  EXPECT_EQ(m.run_sources, second.sources) << "a gauge: the last run's, not a sum";
  EXPECT_EQ(metrics_from_json(to_json(m)).run_sources, m.run_sources);
  for (auto format : {MetricsFormat::prometheus, MetricsFormat::openmetrics}) {
    const std::string text = metrics_text(m, "shop/prod", format);
    EXPECT_NE(text.find("# TYPE ods_run_sources gauge\n"), std::string::npos) << text;
    EXPECT_NE(text.find("ods_run_sources{project=\"shop/prod\",exactness=\"semantic\"} 3\n"), std::string::npos)
        << text;
    EXPECT_NE(text.find("ods_run_sources{project=\"shop/prod\",exactness=\"exact\"} 0\n"), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace ods::run
