// What `ods state pr` reports (pr_report.h) after a failed build: the terminal line counts the
// tests by dbt's status (passed, failed, warned, skipped; never "other"), and the Markdown heads
// the nodes that did not build "Failed or skipped" and the tests' code column "Status".
#include "pr_report.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/temp_dir.h"

namespace ods::cli {
namespace {

namespace fs = std::filesystem;

planner::PlanEntry built(const std::string& name) {
  planner::PlanEntry e;
  e.id = "model.shop." + name;
  e.name = name;
  e.resource_type = "model";
  e.action = planner::Action::build;
  e.reasons.push_back({"fingerprint_changed", "code changed"});
  return e;
}

// fct_orders failed, dim_customers skipped below it; four tests, one in each status.
PrOutcome failed_outcome() {
  PrOutcome o;
  o.prod_scope = "shop/dev";
  o.pr_target = "pr";
  o.upstream = "defer";
  o.selection.plan.entries = {built("fct_orders"), built("dim_customers")};
  o.results["model.shop.fct_orders"] = {"model.shop.fct_orders", "error", "", "syntax error", 0};
  o.results["model.shop.dim_customers"] = {"model.shop.dim_customers", "skipped", "", "", 0};
  for (const auto& [name, status] : std::vector<std::pair<std::string, std::string>>{
           {"a", "pass"}, {"b", "fail"}, {"c", "warn"}, {"d", "skipped"}}) {
    const std::string id = "test.shop." + name + ".1";
    o.results[id] = {id, status, "", "", 0};
  }
  o.failed = true;
  o.dbt_errors = "dbt failed with exit code 1.";
  return o;
}

TEST(PrReport, CountsTestsByStatusAndNamesWhatDidNotBuild) {
  const PrCounts c = count_pr(failed_outcome());
  EXPECT_EQ(c.failed, 1);
  EXPECT_EQ(c.skipped, 1);
  EXPECT_EQ(c.tests_passed, 1);
  EXPECT_EQ(c.tests_failed, 1);
  EXPECT_EQ(c.tests_warned, 1);
  EXPECT_EQ(c.tests_skipped, 1);

  ods::testing::TempDir dir{"pr_report"};
  std::ostringstream out, err;
  CommandContext ctx;
  ctx.out = &out;
  ctx.err = &err;
  ctx.env.getenv = [](const std::string&) { return std::string(); };
  ctx.summary_file = dir.path() / "summary.md";
  ASSERT_TRUE(deliver_pr_report(ctx, failed_outcome())) << err.str();
  EXPECT_NE(out.str().find("tests: 1 passed, 1 failed, 1 warned, 1 skipped;"), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("other"), std::string::npos) << out.str();

  std::ifstream in(ctx.summary_file);
  const std::string markdown{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  EXPECT_NE(markdown.find("### Failed or skipped (2)\n\n- fct\\_orders (error)\n- dim\\_customers (skipped)\n"),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("| Node | Type | Status | Why |"), std::string::npos) << markdown;
  EXPECT_EQ(markdown.find("| Reason |"), std::string::npos) << markdown;
}

}  // namespace
}  // namespace ods::cli
