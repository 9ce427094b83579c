// `ods state test` on examples/shop (DuckDB): tested builds and tested sources (ADR-0013
// #220, #232). Each scenario is a change followed by `ods state test`, with assertions on which
// nodes' and sources' checks ran and why.
#include <gtest/gtest.h>

#include <map>
#include <memory>

#include "harness/shop_baseline.h"
#include "harness/warehouse.h"

namespace ods::testing {
namespace {

struct TestCommand {
  int exit_code = -1;
  nlohmann::json doc;  // {"checks": …, "run": …}
  std::string errors;
};

// `ods state test --format json` on `p`.
TestCommand test_checks(const DbtProject& p, std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"state", "test", "--format", "json", "--profiles-dir", p.dir().string()};
  args.insert(args.end(), extra.begin(), extra.end());
  ProcessResult r = p.ods(args);
  TestCommand out{r.exit_code, nlohmann::json::parse(r.output, nullptr, false), r.errors};
  // A refusal prints nothing on stdout; anything else prints the document.
  EXPECT_EQ(out.doc.is_discarded(), r.output.empty()) << "stdout:\n" << r.output << "\nstderr:\n" << r.errors;
  return out;
}

// Name -> "run:<code>" / "skip:<code>" for every entry of the check plan.
std::map<std::string, std::string> decisions(const TestCommand& t) {
  std::map<std::string, std::string> out;
  for (const auto& e : t.doc.at("checks").at("entries"))
    out[e.at("name")] = e.at("action").get<std::string>() + ":" + e.at("reasons").at(0).at("code").get<std::string>();
  return out;
}

// The names whose checks ran.
std::vector<std::string> ran(const TestCommand& t) {
  std::vector<std::string> out;
  for (const auto& [name, d] : decisions(t))
    if (d.rfind("run:", 0) == 0) out.push_back(name);
  return out;
}

// The nodes and sources of examples/shop that have checks (data or unit tests).
const std::vector<std::string> kWithChecks = {"country_codes", "dim_customers", "fct_orders",    "orders_daily",
                                              "raw.customers", "raw.orders",    "stg_customers", "stg_orders"};

// Built by `ods state run`: every node built with its tests passing, and the sources' checks run.
std::unique_ptr<DbtProject> make_run_baseline() {
  auto p = std::make_unique<DbtProject>("shop");
  EXPECT_EQ(p->generate_data().exit_code, 0);
  ProcessResult r = p->ods({"state", "run", "--profiles-dir", p->dir().string()});
  EXPECT_EQ(r.exit_code, 0) << r.output << r.errors;
  return p;
}

const DbtProject& run_baseline() {
  static std::unique_ptr<DbtProject> baseline = make_run_baseline();
  return *baseline;
}

class ShopTestCommand : public ::testing::Test {
 protected:
  ShopTestCommand() : project_(DbtProject::copy_of(run_baseline())) {}
  DbtProject project_;
};

TEST_F(ShopTestCommand, AfterARunWithPassingTestsNothingIsLeftToTest) {
  TestCommand t = test_checks(project_);
  ASSERT_EQ(t.exit_code, 0) << t.errors;
  EXPECT_EQ(t.doc.at("run").at("outcome"), "nothing_to_test");
  EXPECT_NE(t.errors.find("dbt test not started"), std::string::npos) << t.errors;
  std::map<std::string, std::string> want;
  for (const auto& name : kWithChecks) want[name] = "skip:unchanged";
  EXPECT_EQ(decisions(t), want) << t.doc.dump(2);
  EXPECT_EQ(t.doc.at("checks").at("summary").at("without_checks"), 3);  // stg_payments, the snapshot, the Python model
}

TEST_F(ShopTestCommand, AnEditedTestMakesOnlyItsNodeUntested) {
  project_.replace_in("models/staging/_staging.yml", "values: [placed, shipped, completed, returned, cancelled]",
                      "values: [placed, shipped, completed, returned, cancelled, lost]");
  TestCommand t = test_checks(project_);
  ASSERT_EQ(t.exit_code, 0) << t.errors;
  EXPECT_EQ(ran(t), std::vector<std::string>{"stg_orders"}) << t.doc.dump(2);
  EXPECT_EQ(decisions(t).at("stg_orders"), "run:checks_changed");
  EXPECT_EQ(t.doc.at("run").at("outcome"), "tested");
  EXPECT_EQ(t.doc.at("run").at("counts").at("failed"), 0);
  // The real dbt runs in the ods dbt driver: one parse, recorded against the planned project.
  EXPECT_EQ(t.doc.at("run").at("recorded_from"), "plan");
  EXPECT_EQ(ran(test_checks(project_)), std::vector<std::string>{}) << "a pass is recorded";
}

// Rule 2 without the driver (a wrapper script: dbt test parses the project itself): the test
// is edited once more just before dbt test starts and put back after it. What passed is the
// edit dbt ran, not the checks decided on, so the next `ods state test` runs them again.
TEST_F(ShopTestCommand, WithoutTheDriverATestEditedWhileDbtTestRunsIsRecordedAsDbtRanIt) {
  project_.replace_in("models/staging/_staging.yml", "values: [placed, shipped, completed, returned, cancelled]",
                      "values: [placed, shipped, completed, returned, cancelled, lost]");
  const std::string yml = (project_.dir() / "models" / "staging" / "_staging.yml").string();
  const std::string dbt = write_dbt_wrapper(project_, "dbt-edits-during-test.sh", "test",
                                            "sed -i 's/cancelled, lost]/cancelled, lost, missing]/' '" + yml + "'",
                                            "sed -i 's/, missing]/]/' '" + yml + "'");
  TestCommand t = test_checks(project_, {"--dbt", dbt});
  ASSERT_EQ(t.exit_code, 0) << t.errors;
  EXPECT_EQ(ran(t), std::vector<std::string>{"stg_orders"}) << t.doc.dump(2);
  EXPECT_EQ(t.doc.at("run").at("recorded_from"), "manifest");
  ASSERT_NE(project_.read("models/staging/_staging.yml").find("cancelled, lost]"), std::string::npos);
  TestCommand next = test_checks(project_);
  ASSERT_EQ(next.exit_code, 0) << next.errors;
  EXPECT_EQ(decisions(next).at("stg_orders"), "run:checks_changed") << next.doc.dump(2);
}

TEST_F(ShopTestCommand, AFailingTestExitsNonZeroShowsDbtsFailureAndRunsAgainNextTime) {
  project_.replace_in("models/staging/_staging.yml", "values: [placed, shipped, completed, returned, cancelled]",
                      "values: [placed, shipped, completed, returned]");  // the data has cancelled orders
  TestCommand t = test_checks(project_);
  EXPECT_EQ(t.exit_code, 1) << t.doc.dump(2);
  EXPECT_EQ(ran(t), std::vector<std::string>{"stg_orders"}) << t.doc.dump(2);
  EXPECT_EQ(t.doc.at("run").at("outcome"), "tests_failed");
  EXPECT_EQ(t.doc.at("run").at("counts").at("failed"), 1);
  EXPECT_NE(t.errors.find("accepted_values_stg_orders_status"), std::string::npos) << t.errors;

  TestCommand again = test_checks(project_);
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_EQ(decisions(again).at("stg_orders"), "run:not_tested") << "a failure clears the record";
  EXPECT_EQ(ran(again), std::vector<std::string>{"stg_orders"});
}

TEST_F(ShopTestCommand, NewRowsInASourceRunItsChecksAgain) {
  ODS_ASSERT_OK(project_.generate_data({"--append-orders", "5"}));
  TestCommand t = test_checks(project_);
  ASSERT_EQ(t.exit_code, 0) << t.errors;
  EXPECT_EQ(decisions(t).at("raw.orders"), "run:new_upstream_data") << t.doc.dump(2);
  EXPECT_EQ(ran(t), std::vector<std::string>{"raw.orders"}) << "builds are not retested for new source data";
  EXPECT_EQ(t.doc.at("run").at("outcome"), "tested");
}

TEST_F(ShopTestCommand, SelectLimitsToSelectedNodesAndTheSourcesTheyReach) {
  project_.replace_in("models/staging/_staging.yml", "values: [placed, shipped, completed, returned, cancelled]",
                      "values: [placed, shipped, completed, returned, cancelled, lost]");
  ODS_ASSERT_OK(project_.generate_data({"--append-orders", "5"}));
  TestCommand plain = test_checks(project_, {"--select", "stg_orders", "--dry-run"});
  ASSERT_EQ(plain.exit_code, 0) << plain.errors;
  EXPECT_EQ(decisions(plain), (std::map<std::string, std::string>{{"stg_orders", "run:checks_changed"}}));
  EXPECT_TRUE(plain.doc.at("run").is_null()) << "--dry-run runs nothing";
  TestCommand ancestors = test_checks(project_, {"--select", "+stg_orders", "--dry-run"});
  EXPECT_EQ(ran(ancestors), (std::vector<std::string>{"raw.orders", "stg_orders"}));
}

// `dbt seed` and a plain `dbt run`, each recorded with `ods state record`, ran no tests: every
// check is untested.
TEST(ShopTestCommandAfterRecord, RunsExactlyTheUntestedChecksOnce) {
  DbtProject p("shop");
  ODS_ASSERT_OK(p.generate_data());
  TestCommand refused = test_checks(p);
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_TRUE(refused.doc.is_discarded()) << "a refusal prints no document";
  EXPECT_NE(refused.errors.find("nothing is recorded"), std::string::npos) << refused.errors;
  for (const char* command : {"seed", "run"}) {
    ODS_ASSERT_OK(p.dbt({command}));
    ODS_ASSERT_OK(p.ods({"state", "record"}));
  }

  TestCommand first = test_checks(p);
  ASSERT_EQ(first.exit_code, 0) << first.errors;
  std::map<std::string, std::string> want;
  for (const auto& name : kWithChecks) want[name] = "run:not_tested";
  EXPECT_EQ(decisions(first), want) << first.doc.dump(2);
  EXPECT_EQ(first.doc.at("run").at("outcome"), "tested");
  EXPECT_EQ(first.doc.at("run").at("counts").at("passed"), static_cast<int>(kWithChecks.size()))
      << first.doc.at("run").dump(2);

  TestCommand second = test_checks(p);
  ASSERT_EQ(second.exit_code, 0) << second.errors;
  EXPECT_EQ(second.doc.at("run").at("outcome"), "nothing_to_test") << second.doc.dump(2);
  EXPECT_EQ(decisions(second).at("stg_orders"), "skip:unchanged");
}

}  // namespace
}  // namespace ods::testing
