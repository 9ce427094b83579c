// A PR environment's built set: code changes and their readers; the rest read from production.
#include "ods/run/pr_environment.h"

#include <gtest/gtest.h>

namespace ods::run {
namespace {

// A chain a -> b -> c plus d (reads a) and e (reads nothing built); `first_reason` per node.
struct Project {
  planner::ProjectInputs inputs;
  planner::ExecutionPlan plan;
  void add(const std::string& name, const std::vector<std::string>& parents, planner::Action action, std::string code) {
    planner::NodeInput n;
    n.id = "model.shop." + name;
    n.name = name;
    n.resource_type = "model";
    n.relation = "\"shop\".\"main\".\"" + name + "\"";
    for (const auto& p : parents) n.parents.push_back("model.shop." + p);
    inputs.nodes.push_back(n);
    planner::PlanEntry e;
    e.id = n.id;
    e.name = name;
    e.resource_type = "model";
    e.action = action;
    e.reasons = {{std::move(code), "planner's sentence"}};
    plan.entries.push_back(e);
  }
};

std::map<std::string, bool> all_exist(const Project& p) {
  std::map<std::string, bool> out;
  for (const auto& n : p.inputs.nodes) out[n.id] = true;
  return out;
}

std::string code_of(const PrSelection& s, const std::string& name) {
  for (const auto& e : s.plan.entries)
    if (e.name == name) return std::string(planner::to_string(e.action)) + ":" + e.reasons.front().code;
  return "absent";
}

Project shop() {
  Project p;
  p.add("a", {}, planner::Action::reuse, "unchanged");
  p.add("e", {}, planner::Action::build, "new_upstream_data");  // prod would build it for data only
  p.add("b", {"a", "e"}, planner::Action::build, "fingerprint_changed");
  p.add("d", {"a"}, planner::Action::reuse, "unchanged");
  p.add("c", {"b"}, planner::Action::build, "new_upstream_data");
  return p;
}

TEST(PrSelection, BuildsCodeChangesAndTheirReadersAndReadsTheirParentsFromProduction) {
  const Project p = shop();
  const PrSelection s = pr_selection(p.inputs, p.plan, all_exist(p));
  EXPECT_EQ(code_of(s, "b"), "build:fingerprint_changed");
  EXPECT_EQ(code_of(s, "c"), "build:upstream_code_changed");
  EXPECT_EQ(code_of(s, "a"), "reuse:from_production");
  EXPECT_EQ(code_of(s, "e"), "reuse:from_production");  // a data-only build in prod is not the PR's
  EXPECT_EQ(code_of(s, "d"), "reuse:not_read");
  EXPECT_EQ(s.from_production, (std::vector<std::string>{"model.shop.a", "model.shop.e"}));
  EXPECT_EQ(s.plan.select, "b c");
}

TEST(PrSelection, NothingDiffersNothingBuilds) {
  Project p;
  p.add("a", {}, planner::Action::build, "new_upstream_data");
  p.add("b", {"a"}, planner::Action::reuse, "unchanged");
  const PrSelection s = pr_selection(p.inputs, p.plan, all_exist(p));
  EXPECT_EQ(s.plan.count(planner::Action::build), 0);
  EXPECT_TRUE(s.from_production.empty());
  EXPECT_EQ(s.plan.select, "");
}

TEST(PrSelection, AParentWhoseProductionRelationIsMissingOrUncheckedIsBuiltInstead) {
  const Project p = shop();
  auto exist = all_exist(p);
  exist["model.shop.a"] = false;
  exist.erase("model.shop.e");
  const PrSelection s = pr_selection(p.inputs, p.plan, exist);
  EXPECT_EQ(code_of(s, "a"), "build:relation_missing");
  EXPECT_EQ(code_of(s, "e"), "build:relation_unverified");
  EXPECT_EQ(code_of(s, "d"), "reuse:not_read");  // reads a, but its own code is production's
  EXPECT_TRUE(s.from_production.empty());
  // Not asked at all: nothing can be read from production unverified.
  const PrSelection none = pr_selection(p.inputs, p.plan, std::nullopt);
  EXPECT_EQ(code_of(none, "a"), "build:relation_unverified");
}

TEST(PrSelection, RunContextReadersAndNeverBuiltNodesAreBuilt) {
  Project p;
  p.add("h", {}, planner::Action::build, "reads_run_context");
  p.add("n", {}, planner::Action::build, "never_built");
  p.add("r", {"h"}, planner::Action::build, "new_upstream_data");
  const PrSelection s = pr_selection(p.inputs, p.plan, all_exist(p));
  EXPECT_EQ(code_of(s, "h"), "build:reads_run_context");
  EXPECT_EQ(code_of(s, "n"), "build:never_built");
  EXPECT_EQ(code_of(s, "r"), "build:upstream_code_changed");
}

}  // namespace
}  // namespace ods::run
