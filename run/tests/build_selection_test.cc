// The `dbt build` selection of a run: BUILD nodes, then the sources whose checks run with them.
#include "ods/run/build_selection.h"

#include <gtest/gtest.h>

namespace ods::run {
namespace {

planner::ExecutionPlan plan_of(std::vector<std::pair<std::string, planner::Action>> nodes) {
  planner::ExecutionPlan plan;
  for (auto& [name, action] : nodes) {
    planner::PlanEntry e;
    e.id = "model.shop." + name;
    e.name = name;
    e.action = action;
    plan.entries.push_back(e);
  }
  return plan;
}

TEST(BuildSelection, BuildNodesThenSourceChecks) {
  const auto plan =
      plan_of({{"a", planner::Action::build}, {"b", planner::Action::reuse}, {"c", planner::Action::build}});
  EXPECT_EQ(build_selection(plan, {"source:raw.orders"}), (std::vector<std::string>{"a", "c", "source:raw.orders"}));
}

TEST(BuildSelection, NothingToBuildSelectsNothingNotEvenSourceChecks) {
  const auto plan = plan_of({{"a", planner::Action::reuse}});
  EXPECT_TRUE(build_selection(plan, {"source:raw.orders"}).empty());
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

TEST(SourceChecks, ASourceNeverTestedHasItsChecksRunUnlessDeselected) {
  const auto inputs =
      one_source_with_checks(planner::DataVersion{"v1", planner::Exactness::exact, "test", "2026-11-30T01:00:00Z"});
  EXPECT_EQ(source_checks_to_run(inputs, nullptr, std::nullopt), std::vector<std::string>{"source:raw.orders"});
  EXPECT_TRUE(source_checks_to_run(inputs, nullptr, std::vector<std::string>{}).empty())
      << "--select leaving no check out of the selection";
}

}  // namespace
}  // namespace ods::run
