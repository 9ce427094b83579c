// The `dbt build` selection of a run: BUILD nodes, then the checks that run with them.
#include "ods/run/build_selection.h"

#include <gtest/gtest.h>

namespace ods::run {
namespace {

planner::ExecutionPlan plan_of(std::vector<std::pair<std::string, planner::Action>> nodes,
                               const std::string& type = "model") {
  planner::ExecutionPlan plan;
  for (auto& [name, action] : nodes) {
    planner::PlanEntry e;
    e.id = type + ".shop." + name;
    e.name = name;
    e.resource_type = type;
    e.action = action;
    plan.entries.push_back(e);
  }
  return plan;
}

// A project of `models` and `seeds` (names; ids as plan_of makes them).
planner::ProjectInputs project_of(const std::vector<std::string>& models, const std::vector<std::string>& seeds) {
  planner::ProjectInputs in;
  for (const auto& [names, type] : {std::pair{&models, "model"}, std::pair{&seeds, "seed"}})
    for (const auto& name : *names) {
      planner::NodeInput n;
      n.id = std::string(type) + ".shop." + name;
      n.name = name;
      n.resource_type = type;
      in.nodes.push_back(n);
    }
  return in;
}

TEST(BuildSelection, BuildNodesThenSourceChecks) {
  const auto plan =
      plan_of({{"a", planner::Action::build}, {"b", planner::Action::reuse}, {"c", planner::Action::build}});
  EXPECT_EQ(build_selection(project_of({"a", "b", "c"}, {}), plan, {"source:raw.orders"}),
            (std::vector<std::string>{"a", "c", "source:raw.orders"}));
}

// Found by the reuse corpus (tests/corpus/projects/packaged): with only v2 of dim_customers to
// build, `dim_customers` made dbt build v1 too, which the plan reused.
TEST(BuildSelection, AModelVersionIsNamedWithItsVersion) {
  planner::ExecutionPlan plan;
  for (const auto& [version, action] : {std::pair{"v1", planner::Action::reuse}, {"v2", planner::Action::build}}) {
    planner::PlanEntry e;
    e.id = std::string("model.shop.dim_customers.") + version;
    e.name = "dim_customers";
    e.resource_type = "model";
    e.action = action;
    plan.entries.push_back(e);
  }
  planner::ProjectInputs in = project_of({"a"}, {});
  for (const auto& e : plan.entries) {
    planner::NodeInput n;
    n.id = e.id;
    n.name = e.name;
    n.resource_type = "model";
    in.nodes.push_back(n);
  }
  EXPECT_EQ(build_selection(in, plan, {}), (std::vector<std::string>{"dim_customers.v2"}));
  planner::CheckPlan checks;
  for (const auto& [id, name] : {std::pair{"model.shop.dim_customers.v1", "dim_customers"},
                                 {"model.shop.v2", "v2"}}) {  // the second: a model named v2
    planner::CheckEntry c;
    c.id = id;
    c.name = name;
    c.resource_type = "model";
    checks.entries.push_back(c);
  }
  EXPECT_EQ(check_selection(checks),
            (std::vector<std::string>{"dim_customers.v1,resource_type:test", "v2,resource_type:test"}));
}

TEST(BuildSelection, NothingToBuildSelectsTheChecksAloneOrNothing) {
  const auto plan = plan_of({{"a", planner::Action::reuse}});
  EXPECT_EQ(build_selection(project_of({"a"}, {}), plan, {"source:raw.orders", "a,resource_type:test"}),
            (std::vector<std::string>{"source:raw.orders", "a,resource_type:test"}));
  EXPECT_TRUE(build_selection(project_of({"a"}, {}), plan, {}).empty());
}

TEST(BuildSelection, ATypeWhoseEveryNodeBuildsIsNamedOnceTheOthersByName) {
  auto plan = plan_of({{"a", planner::Action::build}, {"b", planner::Action::build}});
  const auto seeds = plan_of({{"s1", planner::Action::build}, {"s2", planner::Action::reuse}}, "seed");
  plan.entries.insert(plan.entries.end(), seeds.entries.begin(), seeds.entries.end());
  EXPECT_EQ(build_selection(project_of({"a", "b"}, {"s1", "s2"}), plan, {"source:raw.orders"}),
            (std::vector<std::string>{"resource_type:model", "s1", "source:raw.orders"}));
}

TEST(BuildSelection, ATypeIsNamedByNameWhenANodeOfItIsOutsideThePlan) {
  // A wave, or --select, leaves model c out of the plan: resource_type:model would build it too.
  const auto plan = plan_of({{"a", planner::Action::build}, {"b", planner::Action::build}});
  EXPECT_EQ(build_selection(project_of({"a", "b", "c"}, {}), plan, {}), (std::vector<std::string>{"a", "b"}));
}

planner::ProjectInputs one_source_with_checks(const std::optional<planner::DataVersion>& version) {
  planner::ProjectInputs in;
  in.project = "shop";
  in.target = "dev";
  planner::SourceInput s;
  s.id = "source.shop.raw.orders";
  s.name = "raw.orders";
  s.version = version;
  s.checks_digest = "d1";
  in.sources.push_back(s);
  return in;
}

TEST(RunChecks, ASourceNeverTestedHasItsChecksRunUnlessDeselected) {
  const auto inputs =
      one_source_with_checks(planner::DataVersion{"v1", planner::Exactness::exact, "test", "2026-11-30T01:00:00Z"});
  const planner::ExecutionPlan plan;
  EXPECT_EQ(check_selection(run_checks(inputs, nullptr, plan, std::nullopt)),
            std::vector<std::string>{"source:raw.orders"});
  EXPECT_TRUE(check_selection(run_checks(inputs, nullptr, plan, std::vector<std::string>{})).empty())
      << "--select leaving no check out of the selection";
}

// Issue 27: a reused node whose checks failed on its build (no pass recorded) has its data
// tests run, not the node; one whose checks passed on its build has none run.
TEST(RunChecks, AReusedNodeWithoutAPassOnItsBuildHasItsTestsRunNotItself) {
  planner::ProjectInputs inputs = project_of({"a", "b"}, {});
  inputs.project = "shop";
  for (auto& n : inputs.nodes) n.checks_digest = "c1";
  planner::StateSnapshot previous;
  previous.project = "shop";
  previous.nodes["model.shop.a"].run_id = "r1";
  previous.nodes["model.shop.b"].run_id = "r1";
  previous.nodes["model.shop.b"].tested = planner::TestRecord{"r1", "2026-11-30T01:00:00Z", "c1"};
  const auto plan = plan_of({{"a", planner::Action::reuse}, {"b", planner::Action::reuse}});
  const planner::CheckPlan checks = run_checks(inputs, &previous, plan, std::nullopt);
  EXPECT_EQ(check_selection(checks), std::vector<std::string>{"a,resource_type:test"});
  ASSERT_EQ(checks.entries.size(), 2u);
  EXPECT_EQ(checks.entries[1].reasons.at(0).code, "unchanged");
  EXPECT_NE(checks.entries[1].reasons.at(0).message.find("passed on this build in run r1"), std::string::npos)
      << checks.entries[1].reasons.at(0).message;
}

}  // namespace
}  // namespace ods::run
