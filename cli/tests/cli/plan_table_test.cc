// `ods pod` prints the controller's plan with the table `ods state run` prints its own: the
// table made from the plan's JSON document (what the pod receives) is the table of the plan.
#include <gtest/gtest.h>

#include <sstream>

#include "ods/planner/json_io.h"
#include "plan_format.h"

namespace ods::cli {
namespace {

using planner::Action;

planner::ExecutionPlan shop_plan() {
  planner::ExecutionPlan plan;
  plan.scope = "shop/prod";
  const auto entry = [](std::string name, Action action, std::vector<planner::Reason> reasons) {
    planner::PlanEntry e;
    e.id = "model.shop." + name;
    e.name = std::move(name);
    e.resource_type = "model";
    e.action = action;
    e.reasons = std::move(reasons);
    e.evidence.push_back({"fingerprint", e.id, "ab12", planner::Exactness::exact, "manifest.json"});
    e.evidence.push_back({"version_strategy", "source.shop.raw.orders", "relation_versions",
                          planner::Exactness::semantic, "postgres_statistics"});
    return e;
  };
  plan.entries.push_back(entry("stg_orders", Action::reuse, {{"unchanged", "code and inputs are as last built"}}));
  plan.entries.push_back(entry("customers_with_a_long_name", Action::build,
                               {{"code_changed", "the SQL changed"}, {"upstream", "stg_orders is rebuilt"}}));
  plan.entries.push_back(entry("orders", Action::build, {{"source_changed", "raw.orders has new rows: é"}}));
  plan.select = "customers_with_a_long_name orders";
  plan.warnings = {"sources.json is older than the run"};
  return plan;
}

TEST(PlanTable, ThePodsTableFromThePlanJsonIsTheTableOfThePlan) {
  const planner::ExecutionPlan plan = shop_plan();
  std::ostringstream run_table, pod_table;
  print_plan_table(run_table, plan);
  for (const bool pretty : {false, true}) {
    pod_table.str("");
    auto printed = print_plan_table_json(pod_table, planner::to_json(plan, pretty));
    ASSERT_TRUE(printed) << printed.error().message;
    EXPECT_EQ(pod_table.str(), run_table.str());
  }
  EXPECT_NE(run_table.str().find("BUILD (2)"), std::string::npos) << run_table.str();
  EXPECT_NE(run_table.str().find("; stg_orders is rebuilt"), std::string::npos) << run_table.str();
  EXPECT_NE(run_table.str().find("warning: sources.json is older than the run"), std::string::npos);
  EXPECT_NE(run_table.str().find("dbt build --select customers_with_a_long_name orders"), std::string::npos);
  // How sure the sources' evidence is, each source once.
  EXPECT_NE(run_table.str().find("\nSource evidence: 1 semantic.\n2 to build"), std::string::npos) << run_table.str();
}

TEST(PlanTable, APlanDocumentThatIsNotAPlanIsAnErrorAndPrintsNothing) {
  std::ostringstream out;
  auto printed =
      print_plan_table_json(out, R"({"entries": [{"action": "build"}], "scope": "s", "select": "", "warnings": []})");
  ASSERT_FALSE(printed);
  EXPECT_EQ(printed.error().code, "corrupt");
  EXPECT_NE(printed.error().message.find("the controller's plan: plan.entries[0]"), std::string::npos)
      << printed.error().message;
  EXPECT_TRUE(out.str().empty()) << out.str();
}

}  // namespace
}  // namespace ods::cli
