// `ods state plan` on a real dbt project (examples/shop, DuckDB): each test is a change to
// a built and recorded copy, then a plan whose decisions are asserted node by node.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "harness/shop_baseline.h"

namespace ods::testing {
namespace {

using Expectation = std::map<std::string, std::string>;  // node name -> "build:code" | "reuse:code"

void expect_plan(const nlohmann::json& plan, const Expectation& expected) {
  for (const auto& [name, want] : expected) {
    EXPECT_EQ(decision(entry(plan, name)), want) << name << ": " << entry(plan, name).dump(2);
  }
}

// Baseline decisions on examples/shop with nothing changed.
const Expectation kBaseline = {
    {"country_codes", "reuse:unchanged"},
    {"stg_orders", "reuse:unchanged"},
    {"orders_daily", "reuse:unchanged"},
    {"fct_orders", "build:new_upstream_data"},         // stg_payments is built (no evidence)
    {"stg_payments", "build:missing_data_evidence"},   // raw.payments has no data evidence
    {"stg_customers", "build:missing_data_evidence"},  // raw.customers has no data evidence
    {"customers_snapshot", "build:missing_data_evidence"},
    {"dim_customers", "build:reads_run_context"},         // env_var in its pre-hook
    {"order_status_summary", "build:new_upstream_data"},  // fct_orders is built
};

Expectation with(Expectation base, const Expectation& changes) {
  for (const auto& [k, v] : changes) base[k] = v;
  return base;
}

class ShopPlan : public ::testing::Test {
 protected:
  ShopPlan() : project_(DbtProject::copy_of(shop_baseline())) {}
  DbtProject project_;
};

TEST_F(ShopPlan, NothingChangedReusesWhatCanBeReusedAndSaysWhyTheRestBuilds) {
  auto plan = project_.plan_json();
  expect_plan(plan, kBaseline);
  EXPECT_EQ(plan.at("entries").size(), 9u) << "ephemeral models and tests are not planned";
  auto hook = entry(plan, "dim_customers").at("reasons").at(0).at("message").get<std::string>();
  EXPECT_NE(hook.find("env_var"), std::string::npos) << hook;
  auto missing = entry(plan, "stg_customers").at("reasons").at(0).at("message").get<std::string>();
  EXPECT_NE(missing.find("raw.customers"), std::string::npos) << missing;
  for (const auto& e : plan.at("entries")) {
    if (e.at("action") == "reuse") {
      bool relation_evidence = false;
      for (const auto& ev : e.at("evidence")) relation_evidence |= ev.at("kind") == "relation_exists";
      EXPECT_TRUE(relation_evidence) << "a reuse says whether the relation was checked: " << e.dump();
    }
  }
}

TEST_F(ShopPlan, CommentOrWhitespaceEditReusesSayingOnlyFormattingChanged) {
  project_.replace_in("models/staging/stg_orders.sql", "select\n", "-- a comment\nselect   \n\n");
  refresh_and_compile(project_);
  auto plan = project_.plan_json();
  expect_plan(plan, kBaseline);
  auto codes = reason_codes(entry(plan, "stg_orders"));
  // stg_orders' Jinja is pure (only source()), so only its normalised SQL counts.
  EXPECT_NE(std::find(codes.begin(), codes.end(), "formatting_only"), codes.end()) << entry(plan, "stg_orders");
}

TEST_F(ShopPlan, SqlChangeBuildsTheModelNamingSqlAndItsDescendants) {
  project_.replace_in("models/staging/stg_orders.sql", "lower(status)", "upper(status)");
  refresh_and_compile(project_);
  auto plan = project_.plan_json();
  expect_plan(plan, with(kBaseline, {{"stg_orders", "build:fingerprint_changed"},
                                     {"orders_daily", "build:upstream_code_changed"},
                                     {"fct_orders", "build:upstream_code_changed"},
                                     {"dim_customers", "build:upstream_code_changed"},
                                     {"order_status_summary", "build:upstream_code_changed"}}));
  auto message = entry(plan, "stg_orders").at("reasons").at(0).at("message").get<std::string>();
  EXPECT_NE(message.find("sql"), std::string::npos) << message;
}

TEST_F(ShopPlan, MacroEditBuildsExactlyItsUsersAndTheirDescendants) {
  project_.replace_in("macros/cents_to_dollars.sql", "/ 100.0", "/ 100.00");
  refresh_and_compile(project_);
  auto plan = project_.plan_json();
  expect_plan(plan, with(kBaseline, {{"stg_payments", "build:fingerprint_changed"},
                                     {"orders_daily", "build:fingerprint_changed"},
                                     {"fct_orders", "build:fingerprint_changed"},  // the ephemeral's SQL is inlined
                                     {"dim_customers", "build:upstream_code_changed"},
                                     {"order_status_summary", "build:upstream_code_changed"}}));
  EXPECT_EQ(decision(entry(plan, "stg_orders")), "reuse:unchanged") << "stg_orders doesn't use the macro";
}

TEST_F(ShopPlan, VarValueChangeBuildsTheModelThatUsesIt) {
  refresh_and_compile(project_, {"--vars", "{min_order_amount: 7}"});
  auto plan = project_.plan_json();
  expect_plan(plan, with(kBaseline, {{"fct_orders", "build:fingerprint_changed"},
                                     {"dim_customers", "build:upstream_code_changed"},
                                     {"order_status_summary", "build:upstream_code_changed"}}));
}

TEST_F(ShopPlan, SeedEditBuildsTheSeedAndItsDescendants) {
  std::string csv = project_.read("seeds/country_codes.csv");
  project_.write("seeds/country_codes.csv", csv + (csv.ends_with("\n") ? "" : "\n") + "ZZ,Zedland,Nowhere\n");
  refresh_and_compile(project_);
  auto plan = project_.plan_json();
  expect_plan(plan, with(kBaseline, {{"country_codes", "build:fingerprint_changed"},
                                     {"dim_customers", "build:upstream_code_changed"}}));
}

TEST_F(ShopPlan, NewerSourceDataBuildsItsReadersWithNewUpstreamData) {
  ODS_ASSERT_OK(project_.generate_data({"--append-orders", "5"}));
  refresh_and_compile(project_);
  auto plan = project_.plan_json();
  expect_plan(
      plan, with(kBaseline, {{"stg_orders", "build:new_upstream_data"}, {"orders_daily", "build:new_upstream_data"}}));
  auto message = entry(plan, "stg_orders").at("reasons").at(0).at("message").get<std::string>();
  EXPECT_NE(message.find("raw.orders"), std::string::npos) << message;
}

TEST_F(ShopPlan, SourcesJsonOlderThanTheLastBuildIsNotEvidence) {
  // compile only: sources.json is the one taken before the baseline's last build... so
  // rebuild first, then plan without a fresh freshness run.
  ODS_ASSERT_OK(project_.dbt({"build", "--select", "stg_orders"}));
  ODS_ASSERT_OK(project_.ods({"state", "record"}));
  ODS_ASSERT_OK(project_.dbt({"compile"}));
  auto plan = project_.plan_json();
  EXPECT_EQ(decision(entry(plan, "stg_orders")), "build:missing_data_evidence");
  bool warned = false;
  for (const auto& w : plan.at("warnings")) warned |= w.get<std::string>().find("sources.json") != std::string::npos;
  EXPECT_TRUE(warned) << plan.at("warnings");
}

TEST_F(ShopPlan, FailedModelKeepsItsStateAndBuildsNextTime) {
  project_.replace_in("models/marts/fct_orders.sql", "o.loaded_at\n", "o.loaded_at, no_such_column\n");
  auto build = project_.dbt({"build"});
  ASSERT_NE(build.exit_code, 0) << "the broken model should fail dbt build";
  ODS_ASSERT_OK(project_.ods({"state", "record"}));
  refresh_and_compile(project_);
  auto plan = project_.plan_json();
  expect_plan(plan, with(kBaseline, {{"fct_orders", "build:fingerprint_changed"},
                                     {"dim_customers", "build:upstream_code_changed"},
                                     {"order_status_summary", "build:upstream_code_changed"}}));
  // The models that succeeded in the failed run advanced: stg_orders reads run 3 now.
  EXPECT_EQ(decision(entry(plan, "stg_orders")), "reuse:unchanged");
}

TEST_F(ShopPlan, SelectLimitsThePlanAndTheSelection) {
  project_.replace_in("models/staging/stg_orders.sql", "lower(status)", "upper(status)");
  refresh_and_compile(project_);
  auto plan = project_.plan_json({"--select", "stg_orders+"});
  std::vector<std::string> names;
  for (const auto& e : plan.at("entries")) names.push_back(e.at("name"));
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"dim_customers", "fct_orders", "order_status_summary", "orders_daily",
                                             "stg_orders"}));
  EXPECT_NE(plan.at("select").get<std::string>().find("stg_orders"), std::string::npos);
  auto bad = project_.ods({"state", "plan", "--select", "no_such_model"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.errors.find("no_such_model"), std::string::npos) << bad.errors;
}

TEST_F(ShopPlan, TextPlanIsGroupedWithReasonsAndTotals) {
  auto r = project_.ods({"state", "plan"});
  ODS_ASSERT_OK(r);
  EXPECT_NE(r.output.find("BUILD ("), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("REUSE ("), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("to build,"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("reads_run_context"), std::string::npos) << r.output;
  auto explain = project_.ods({"state", "explain", "stg_orders"});
  ODS_ASSERT_OK(explain);
  EXPECT_NE(explain.output.find("evidence:"), std::string::npos) << explain.output;
}

}  // namespace
}  // namespace ods::testing
