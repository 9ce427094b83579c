// run_results.json v6: reading, `ods state record` refusals and the planner's RunOutcome.
#include "ods/dbt/run_results.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fixture_util.h"

namespace ods::dbt {
namespace {

using namespace ods::dbt::testing;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

RunResults read_results_ok(const OJson& json) {
  auto results = read_run_results(write_json(json, "run_results.json"));
  EXPECT_TRUE(results.has_value()) << (results ? "" : results.error().message);
  return results ? *results : RunResults{};
}

class RunResultsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    manifest_ = load_fixture("build_manifest.json");
    sources_ = load_fixture("sources.json");
    project_ = read_ok(manifest_, &sources_);
    build_ = load_fixture("build_run_results.json");
  }
  OJson manifest_, sources_, build_;
  DbtProject project_;
};

TEST_F(RunResultsTest, ReadsABuild) {
  const auto run = read_results_ok(build_);
  EXPECT_EQ(run.command, "build");
  EXPECT_FALSE(run.empty);
  EXPECT_FALSE(run.sample);
  EXPECT_EQ(run.invocation_id, manifest_["metadata"]["invocation_id"].get<std::string>());
  EXPECT_EQ(run.started_at, "2026-11-29T20:49:50.980065Z");
  EXPECT_GT(run.elapsed_seconds, 0);
  ASSERT_EQ(run.results.size(), 15u);
  EXPECT_EQ(run.results[0].unique_id, "model.shop.impure");
  EXPECT_EQ(run.results[0].status, "success");
  EXPECT_FALSE(run.results[0].execute_started_at.empty());
}

TEST_F(RunResultsTest, StartedAtFallsBackToTheEarliestTiming) {
  build_["metadata"].erase("invocation_started_at");
  const auto run = read_results_ok(build_);
  EXPECT_EQ(run.started_at, "2026-11-29T20:49:52.008029Z");
}

TEST_F(RunResultsTest, BuildOfTheSameInvocationIsRecordable) {
  EXPECT_TRUE(check_recordable(read_results_ok(build_), project_.meta).has_value());
}

TEST_F(RunResultsTest, Refusals) {
  auto refusal = [&](const OJson& results, const ManifestMeta& meta) {
    const auto r = check_recordable(read_results_ok(results), meta);
    return r ? Error{} : r.error();
  };
  const Error compile = refusal(load_fixture("compile_run_results.json"), project_.meta);
  EXPECT_EQ(compile.code, "not_a_build");
  EXPECT_THAT(compile.message, HasSubstr("dbt compile"));

  EXPECT_EQ(refusal(load_fixture("empty_run_results.json"), project_.meta).code, "empty_run");

  OJson sample = build_;
  // What `dbt run --sample="3 days"` writes.
  sample["args"]["sample"] =
      OJson{{"start", "2026-11-26T21:15:59.835517+00:00"}, {"end", "2026-11-29T21:15:59.835517+00:00"}};
  EXPECT_EQ(refusal(sample, project_.meta).code, "sample_run");

  OJson no_command = build_;
  no_command["args"].erase("which");
  EXPECT_EQ(refusal(no_command, project_.meta).code, "unknown_command");

  const auto edited = read_ok(load_fixture("edited_manifest.json"));  // written by `dbt compile`
  const Error other = refusal(build_, edited.meta);
  EXPECT_EQ(other.code, "invocation_mismatch");
  EXPECT_THAT(other.message, HasSubstr(edited.meta.invocation_id));

  ManifestMeta nameless = project_.meta;
  nameless.project_name.clear();
  EXPECT_EQ(refusal(build_, nameless).code, "no_project_name");

  for (const char* command : {"run", "seed", "snapshot"}) {
    OJson other_command = build_;
    other_command["args"]["which"] = command;
    EXPECT_TRUE(check_recordable(read_results_ok(other_command), project_.meta).has_value()) << command;
  }
}

TEST_F(RunResultsTest, OnlyADbtTestOfTheSameInvocationIsATestRun) {
  auto code_of = [&](const OJson& results, const ManifestMeta& meta) {
    const auto r = check_test_run(read_results_ok(results), meta);
    return r ? std::string() : r.error().code;
  };
  OJson test = build_;
  test["args"]["which"] = "test";
  EXPECT_EQ(code_of(test, project_.meta), "");
  EXPECT_EQ(code_of(build_, project_.meta), "not_a_test_run");
  EXPECT_EQ(code_of(test, read_ok(load_fixture("edited_manifest.json")).meta), "invocation_mismatch");
  OJson no_command = build_;
  no_command["args"].erase("which");
  EXPECT_EQ(code_of(no_command, project_.meta), "unknown_command");
  ManifestMeta nameless = project_.meta;
  nameless.project_name.clear();
  EXPECT_EQ(code_of(test, nameless), "no_project_name");
  EXPECT_FALSE(check_recordable(read_results_ok(test), project_.meta).has_value()) << "dbt test builds nothing";
}

TEST_F(RunResultsTest, OutcomeOfASuccessfulBuild) {
  const auto outcome = to_run_outcome(read_results_ok(build_), project_);
  ASSERT_TRUE(outcome.has_value()) << outcome.error().message;
  EXPECT_EQ(outcome->run_id, manifest_["metadata"]["invocation_id"].get<std::string>());
  EXPECT_EQ(outcome->started_at, "2026-11-29T20:49:50.980065Z");
  EXPECT_EQ(outcome->node_status.size(), 8u);  // planned nodes only: no tests, no ephemeral models
  EXPECT_EQ(outcome->node_status.at("model.shop.orders"), "success");
  EXPECT_EQ(outcome->node_tests_passed,
            (std::map<std::string, bool>{
                {"model.shop.contracted", true}, {"model.shop.orders", true}, {"seed.shop.customers", true}}));
  EXPECT_EQ(outcome->source_tests_passed, (std::map<std::string, bool>{{"source.shop.raw.orders", true}}));
  // sources.json was taken before the build started.
  ASSERT_TRUE(outcome->source_versions.contains("source.shop.raw.orders"));
  EXPECT_EQ(outcome->source_versions.at("source.shop.raw.orders").value, "2026-01-02T11:00:00.000000Z");
}

TEST_F(RunResultsTest, FailingOrPartialChecks) {
  for (auto& result : build_["results"]) {
    if (result["unique_id"] == "test.shop.relationships_orders_customer_id__id__ref_customers_.4282b0c525") {
      result["status"] = "fail";
    }
    if (result["unique_id"] == "test.shop.unique_contracted_id.2fdee2ec16") result["status"] = "warn";
  }
  // raw.orders has one check; without its result no source check ran.
  OJson kept = OJson::array();
  for (auto& result : build_["results"]) {
    if (result["unique_id"] != "test.shop.source_not_null_raw_orders_id.f232a64478") kept.push_back(result);
  }
  build_["results"] = kept;
  auto outcome = to_run_outcome(read_results_ok(build_), project_);
  ASSERT_TRUE(outcome.has_value());
  EXPECT_FALSE(outcome->node_tests_passed.at("model.shop.orders"));
  EXPECT_FALSE(outcome->node_tests_passed.at("seed.shop.customers"));
  EXPECT_TRUE(outcome->node_tests_passed.at("model.shop.contracted"));  // a warning passes
  EXPECT_THAT(outcome->source_tests_passed, IsEmpty());

  // Some of orders' checks passed and the others didn't run: that vouches for nothing.
  build_ = load_fixture("build_run_results.json");
  kept = OJson::array();
  for (auto& result : build_["results"]) {
    if (result["unique_id"] != "test.shop.orders_not_empty") kept.push_back(result);
  }
  build_["results"] = kept;
  outcome = to_run_outcome(read_results_ok(build_), project_);
  EXPECT_FALSE(outcome->node_tests_passed.contains("model.shop.orders"));
  EXPECT_TRUE(outcome->node_tests_passed.at("seed.shop.customers"));

  // A check dbt skipped (a failure upstream of it) did not run: it neither fails nor passes
  // what it reads, so the customers seed's record is left as it was.
  build_ = load_fixture("build_run_results.json");
  for (auto& result : build_["results"]) {
    if (result["unique_id"] == "test.shop.relationships_orders_customer_id__id__ref_customers_.4282b0c525") {
      result["status"] = "skipped";
    }
  }
  outcome = to_run_outcome(read_results_ok(build_), project_);
  EXPECT_FALSE(outcome->node_tests_passed.contains("seed.shop.customers"));
  EXPECT_FALSE(outcome->node_tests_passed.contains("model.shop.orders"));
}

TEST_F(RunResultsTest, SourceVersionsObservedAfterTheStartAreNotUsed) {
  sources_["results"][0]["snapshotted_at"] = "2026-11-29T20:49:51+00:00";  // after the build started
  const auto late = read_ok(manifest_, &sources_);
  const auto outcome = to_run_outcome(read_results_ok(build_), late);
  ASSERT_TRUE(outcome.has_value());
  EXPECT_THAT(outcome->source_versions, IsEmpty());
}

TEST_F(RunResultsTest, BadRunResults) {
  OJson old = build_;
  old["metadata"]["dbt_schema_version"] = "https://schemas.getdbt.com/dbt/run-results/v5.json";
  auto r = read_run_results(write_json(old, "run_results.json"));
  EXPECT_EQ(r.error().code, "unsupported_schema");
  EXPECT_THAT(r.error().message, HasSubstr("run-results/v5.json"));

  OJson bad = build_;
  bad["results"][2]["status"] = 7;
  r = read_run_results(write_json(bad, "run_results.json"));
  EXPECT_EQ(r.error().code, "invalid_artifact");
  EXPECT_THAT(r.error().message, HasSubstr("run_results.json: results[2].status: expected a string"));

  r = read_run_results(write_text("{\"metadata\": ", "run_results.json"));
  EXPECT_EQ(r.error().code, "invalid_artifact");
  r = read_run_results(temp_file("none.json"));
  EXPECT_EQ(r.error().code, "missing_artifact");
}

}  // namespace
}  // namespace ods::dbt
