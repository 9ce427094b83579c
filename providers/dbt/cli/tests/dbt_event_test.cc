// Reading dbt's JSON log lines and the progress model, on real dbt 1.10 output (fixtures/).
#include "ods/dbt/cli/dbt_event.h"

#include <gtest/gtest.h>

#include "event_fixtures.h"
#include "ods/dbt/cli/dbt_progress.h"
#include "process/tests/test_programs.h"

namespace ods::dbt {
namespace {

DbtProgress progress_of(const std::string& fixture) {
  DbtProgress progress;
  for (const std::string& line : testing::fixture_lines(fixture)) {
    DbtEvent event = parse_dbt_line(process::Stream::standard_output, line);
    EXPECT_FALSE(event.is_plain()) << line;
    progress.apply(event);
  }
  return progress;
}

TEST(DbtEvent, ReadsNameLevelMessageAndData) {
  const std::string line = testing::fixture_lines("build_success.jsonl").front();
  DbtEvent event = parse_dbt_line(process::Stream::standard_output, line);
  EXPECT_EQ(event.name, "MainReportVersion");
  EXPECT_EQ(event.level, "info");
  EXPECT_EQ(event.msg, "Running with dbt=1.10.15");
  EXPECT_FALSE(event.invocation_id.empty());
  EXPECT_EQ(event.data.at("version"), "=1.10.15");
  EXPECT_EQ(event.line, line);
  EXPECT_FALSE(event.is_plain());
}

TEST(DbtEvent, AnythingElseIsPlainText) {
  for (const std::string line : {"Traceback (most recent call last):", "", "{\"a\": 1}", "{\"info\": {\"name\": 3}}",
                                 "{\"info\": {\"name\": \"X\"", "[1, 2]"}) {
    DbtEvent event = parse_dbt_line(process::Stream::standard_error, line);
    EXPECT_TRUE(event.is_plain()) << line;
    EXPECT_EQ(event.msg, line);
    EXPECT_EQ(event.stream, process::Stream::standard_error);
    EXPECT_TRUE(event.data.is_null());
  }
}

TEST(DbtEvent, AnEventWithoutDataGetsAnEmptyObject) {
  DbtEvent event =
      parse_dbt_line(process::Stream::standard_output, R"({"info": {"name": "X", "level": "warn", "msg": "m"}})");
  EXPECT_EQ(event.name, "X");
  EXPECT_TRUE(event.data.is_object());
  EXPECT_TRUE(event.data.empty());
}

TEST(DbtEvent, StripAnsiRemovesColourCodes) {
  EXPECT_EQ(strip_ansi("[\x1b[32mOK\x1b[0m in 0.45s]"), "[OK in 0.45s]");
  EXPECT_EQ(strip_ansi("\x1b[31mFailure\x1b[0m"), "Failure");
  EXPECT_EQ(strip_ansi("plain"), "plain");
  EXPECT_EQ(strip_ansi("cut \x1b["), "cut ");
}

TEST(DbtProgress, ASuccessfulBuildFinishesEveryNode) {
  DbtProgress progress = progress_of("build_success.jsonl");
  EXPECT_EQ(progress.total(), 19);
  EXPECT_EQ(progress.started(), 19);
  EXPECT_EQ(progress.finished(), 19);
  EXPECT_EQ(progress.count(NodeState::succeeded), 19);
  EXPECT_EQ(progress.dbt_version(), "=1.10.15");
  ASSERT_TRUE(progress.summary().seen);
  EXPECT_FALSE(progress.summary().keyboard_interrupt);
  EXPECT_EQ(progress.summary().pass, 19);
  EXPECT_EQ(progress.summary().total, 19);
  const NodeProgress& first = progress.nodes().at(1);
  EXPECT_EQ(first.unique_id, "model.shop.stg_payments");
  EXPECT_EQ(first.name, "stg_payments");
  EXPECT_EQ(first.resource_type, "model");
  EXPECT_EQ(first.status, "OK");
  const NodeProgress& seed = progress.nodes().at(2);
  EXPECT_EQ(seed.unique_id, "seed.shop.country_codes");
  EXPECT_EQ(seed.status, "success");
}

TEST(DbtProgress, AFailedModelAndTheNodesSkippedBecauseOfIt) {
  DbtProgress progress = progress_of("build_model_error.jsonl");
  EXPECT_EQ(progress.total(), 19);
  EXPECT_EQ(progress.finished(), 19);
  EXPECT_EQ(progress.count(NodeState::errored), 1);
  EXPECT_EQ(progress.count(NodeState::skipped), 7);
  EXPECT_EQ(progress.count(NodeState::succeeded), 11);
  EXPECT_EQ(progress.nodes().at(1).state, NodeState::errored);
  EXPECT_EQ(progress.nodes().at(11).name, "fct_orders");  // LogSkipBecauseError: data.relation
  EXPECT_EQ(progress.nodes().at(11).state, NodeState::skipped);
  EXPECT_EQ(progress.nodes().at(16).unique_id, "model.shop.dim_customers");  // SkippingDetails
  EXPECT_EQ(progress.summary().num_errors, 2);
  EXPECT_EQ(progress.summary().skip, 7);
}

TEST(DbtProgress, AnInterruptedBuild) {
  DbtProgress progress = progress_of("build_interrupted.jsonl");
  EXPECT_EQ(progress.total(), 19);
  EXPECT_EQ(progress.started(), 7);
  EXPECT_EQ(progress.finished(), 7);
  EXPECT_EQ(progress.count(NodeState::errored), 1);  // the test whose query was cancelled
  EXPECT_TRUE(progress.summary().keyboard_interrupt);
}

TEST(DbtProgress, ACompilationErrorBeforeAnyNode) {
  DbtProgress progress = progress_of("build_compile_error.jsonl");
  EXPECT_EQ(progress.total(), 0);
  EXPECT_EQ(progress.started(), 0);
  EXPECT_FALSE(progress.summary().seen);
}

TEST(DbtProgress, TotalIsProvisionalUntilTheFirstNodeEvent) {
  DbtProgress progress;
  EXPECT_TRUE(progress.apply(parse_dbt_line(
      process::Stream::standard_output,
      R"({"info": {"name": "ConcurrencyLine", "level": "info", "msg": ""}, "data": {"node_count": 18}})")));
  EXPECT_EQ(progress.total(), 18);
  EXPECT_TRUE(progress.apply(parse_dbt_line(
      process::Stream::standard_output,
      R"({"info": {"name": "LogStartLine", "level": "info", "msg": ""}, "data": {"index": 1, "total": 19}})")));
  EXPECT_EQ(progress.total(), 19);
  EXPECT_EQ(progress.started(), 1);
  EXPECT_EQ(progress.finished(), 0);
  EXPECT_EQ(progress.nodes().at(1).state, NodeState::running);
  EXPECT_FALSE(progress.apply(parse_dbt_line(process::Stream::standard_output, "plain text")));
  EXPECT_FALSE(progress.apply(
      parse_dbt_line(process::Stream::standard_output,
                     R"({"info": {"name": "Formatting", "level": "info", "msg": ""}, "data": {"msg": ""}})")));
}

struct StatusCase {
  const char* event;
  const char* status;
  NodeState expected;
};

TEST(DbtProgress, StatusWordsOfEachResultEvent) {
  const StatusCase cases[] = {
      {"LogModelResult", "OK", NodeState::succeeded},       {"LogModelResult", "success", NodeState::succeeded},
      {"LogModelResult", "error", NodeState::errored},      {"LogModelResult", "PARTIAL SUCCESS", NodeState::warned},
      {"LogTestResult", "pass", NodeState::succeeded},      {"LogTestResult", "warn", NodeState::warned},
      {"LogTestResult", "fail", NodeState::failed},         {"LogTestResult", "error", NodeState::errored},
      {"LogFreshnessResult", "pass", NodeState::succeeded}, {"LogFreshnessResult", "warn", NodeState::warned},
      {"LogFreshnessResult", "error", NodeState::failed},   {"LogFreshnessResult", "runtime error", NodeState::errored},
      {"LogSeedResult", "error", NodeState::errored},       {"LogSnapshotResult", "success", NodeState::succeeded},
      {"LogNodeNoOpResult", "", NodeState::no_op},          {"SkippingDetails", "", NodeState::skipped},
  };
  for (const StatusCase& c : cases) {
    DbtProgress progress;
    nlohmann::json line = {{"info", {{"name", c.event}, {"level", "info"}, {"msg", ""}}},
                           {"data", {{"index", 3}, {"total", 5}, {"num_models", 5}, {"status", c.status}}}};
    EXPECT_TRUE(progress.apply(parse_dbt_line(process::Stream::standard_output, line.dump())));
    EXPECT_EQ(progress.nodes().at(3).state, c.expected) << c.event << " " << c.status;
    EXPECT_EQ(progress.finished(), 1);
    EXPECT_EQ(progress.total(), 5);
  }
}

}  // namespace
}  // namespace ods::dbt
