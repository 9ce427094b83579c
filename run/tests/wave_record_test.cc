// What follows a wave's build (wave_record.h), on the in-memory store: the wave recorded, the
// nodes held back split after a failure, and re-planned against what the wave recorded.
#include "ods/run/wave_record.h"

#include <gtest/gtest.h>

#include <sstream>

#include "ods/run/wave_plans.h"
#include "ods/state/stores.h"
#include "test_inputs.h"

namespace ods::run {
namespace {

using Ids = std::vector<std::string>;

using callback::testing::kFct;
using callback::testing::kStg;
using callback::testing::test_node;

using callback::testing::test_inputs;  // raw.orders (at a version) -> stg_orders -> fct_orders

planner::DataVersion content(const std::string& value) {
  return planner::DataVersion{value, planner::Exactness::exact, "duckdb_content", "2026-11-30T00:00:00Z"};
}

planner::PlanEntry entry(const std::string& id, planner::Action action, const std::string& code) {
  planner::PlanEntry e;
  e.id = id;
  e.action = action;
  e.reasons.push_back({code, ""});
  return e;
}

planner::RunOutcome succeeded(const std::string& run_id, const std::string& started_at, const Ids& nodes) {
  planner::RunOutcome outcome;
  outcome.run_id = run_id;
  outcome.started_at = started_at;
  for (const auto& id : nodes) outcome.node_status[id] = "success";
  return outcome;
}

std::string first_reason(const planner::ExecutionPlan& plan, const std::string& id) {
  for (const auto& e : plan.entries)
    if (e.id == id) return std::string(e.action == planner::Action::build ? "build:" : "reuse:") + e.reasons.at(0).code;
  return "absent";
}

TEST(WaveRecord, TheOutcomeTakesTheProbesVersionsTheMeasuredContentsAndTheNodesBuiltForCode) {
  const planner::ProjectInputs planned = test_inputs("v2", "2026-11-30T02:00:00Z");
  planner::ExecutionPlan plan;
  plan.entries = {entry(kStg, planner::Action::build, "never_built"),
                  entry(kFct, planner::Action::build, "new_upstream_data")};
  planner::RunOutcome outcome = succeeded("r", "2026-11-30T03:00:00Z", {kStg, kFct});
  outcome.source_versions["source.gone"] = content("stale");
  complete_wave_outcome(outcome, planned, plan, {{{kStg, content("c1")}}, {{kStg, "oid 7"}}});
  ASSERT_EQ(outcome.source_versions.size(), 1u) << "only the probe's versions";
  EXPECT_EQ(outcome.source_versions.at(callback::testing::kSrc).value, "v2");
  EXPECT_EQ(outcome.node_contents.at(kStg).value, "c1");
  EXPECT_EQ(outcome.node_identities.at(kStg), "oid 7");
  EXPECT_EQ(outcome.built_for_code, (Ids{kStg}));
  EXPECT_EQ(outcome.node_status.size(), 2u) << "dbt's side is kept";
}

// The step both halves of a run take: wave 1 builds stg_orders for new data and holds
// fct_orders back; stg_orders' content came out as before, so the re-plan reuses fct_orders.
TEST(WaveRecord, AWaveRecordedAndReplannedCutsOffTheReaderOfUnchangedContent) {
  auto store = state::make_memory_store();
  std::ostringstream retries;
  const planner::ProjectInputs first = test_inputs("v1", "2026-11-30T01:00:00Z");
  planner::PlanOptions options;
  options.now = "2026-11-30T01:30:00Z";
  auto plan = planner::plan(first, nullptr, options);
  ASSERT_TRUE(plan) << plan.error().message;
  planner::RunOutcome built = succeeded("run1", "2026-11-30T01:10:00Z", {kStg, kFct});
  auto committed =
      commit_wave(*store, "shop/dev", first, first, std::nullopt, *plan, built, {{{kStg, content("c1")}}}, retries);
  ASSERT_TRUE(committed) << committed.error().message;

  const planner::ProjectInputs second = test_inputs("v2", "2026-11-30T02:00:00Z");
  options.now = "2026-11-30T02:30:00Z";
  planner::ExecutionPlan whole = *planner::plan(second, &committed->snapshot, options);
  ASSERT_EQ(first_reason(whole, kFct), "build:new_upstream_data");
  const planner::ExecutionPlan wave_plan = only_building(whole, {kStg});
  planner::RunOutcome wave = succeeded("run2", "2026-11-30T02:10:00Z", {kStg});
  state::Head head{committed->stored, committed->snapshot};
  auto recorded =
      commit_wave(*store, "shop/dev", second, second, head, wave_plan, wave, {{{kStg, content("c1")}}}, retries);
  ASSERT_TRUE(recorded) << recorded.error().message;
  EXPECT_EQ(wave.source_versions.at(callback::testing::kSrc).value, "v2") << "the outcome is completed in place";
  EXPECT_EQ(recorded->snapshot.nodes.at(kStg).content->value, "c1");

  auto replan = replan_held_back(second, &recorded->snapshot, wave_plan, {kFct}, options, whole);
  ASSERT_TRUE(replan) << replan.error().message;
  EXPECT_EQ(options.built_earlier, (std::map<std::string, bool>{{kStg, false}}));
  EXPECT_EQ(options.selected, (std::optional<Ids>{Ids{kFct}}));
  EXPECT_EQ(first_reason(*replan, kFct), "reuse:early_cutoff");
  EXPECT_EQ(first_reason(whole, kFct), "reuse:early_cutoff") << "merged into the run's plan";
  EXPECT_EQ(first_reason(whole, kStg), "build:new_upstream_data");
}

TEST(WaveRecord, TheIdsAWaveOfAPlanBuildsAreItsBuildEntriesInPlanOrder) {
  planner::ExecutionPlan plan;
  plan.entries = {entry(kFct, planner::Action::build, "new_upstream_data"),
                  entry("model.shop.kept", planner::Action::reuse, "unchanged"),
                  entry(kStg, planner::Action::build, "fingerprint_changed")};
  EXPECT_EQ(building_ids(plan), (Ids{kFct, kStg}));
  EXPECT_EQ(built_for_code_ids(plan), (Ids{kStg}));
}

TEST(WaveRecord, AFailedReplanLeavesTheRunsPlanAsItWas) {
  planner::ProjectInputs twice = test_inputs("v1", "2026-11-30T01:00:00Z");
  twice.nodes.push_back(twice.nodes.front());  // a duplicate id: invalid_inputs
  planner::ExecutionPlan whole;
  whole.entries.push_back(entry(kFct, planner::Action::build, "new_upstream_data"));
  planner::PlanOptions options;
  auto replan = replan_held_back(twice, nullptr, {}, {kFct}, options, whole);
  ASSERT_FALSE(replan);
  EXPECT_EQ(replan.error().code, "invalid_inputs");
  EXPECT_EQ(first_reason(whole, kFct), "build:new_upstream_data");
}

// stg_orders -> fct_orders; stg_customers -> dim_customers: after a failed build only what lies
// below a failure is skipped.
struct Held {
  planner::ProjectInputs inputs;
  std::map<std::string, Ids> checks_of{{"stg_customers", {"test.customers_unique"}}};
  Held() {
    inputs.nodes = {test_node("stg_orders", {}), test_node("fct_orders", {"stg_orders"}),
                    test_node("stg_customers", {}), test_node("dim_customers", {"stg_customers"})};
  }
};

TEST(WaveRecord, AWaveThatDidNotFailLeavesEveryNodeHeldBackToBuild) {
  const Held h;
  const HeldBack split =
      split_held_back(h.inputs, h.checks_of, {{"stg_orders", "error"}}, {}, false, {"fct_orders", "dim_customers"});
  EXPECT_EQ(split.to_build_later, (Ids{"fct_orders", "dim_customers"}));
  EXPECT_TRUE(split.skipped_below_failure.empty());
}

TEST(WaveRecord, AFailedWaveSkipsOnlyWhatLiesBelowAFailedNodeOrCheck) {
  const Held h;
  const Ids held{"fct_orders", "dim_customers"};
  HeldBack split =
      split_held_back(h.inputs, h.checks_of, {{"stg_orders", "error"}, {"stg_customers", "success"}}, {}, true, held);
  EXPECT_EQ(split.to_build_later, (Ids{"dim_customers"}));
  EXPECT_EQ(split.skipped_below_failure, (Ids{"fct_orders"}));
  split = split_held_back(h.inputs, h.checks_of, {{"stg_orders", "success"}, {"stg_customers", "success"}},
                          {"test.customers_unique"}, true, held);
  EXPECT_EQ(split.to_build_later, (Ids{"fct_orders"}));
  EXPECT_EQ(split.skipped_below_failure, (Ids{"dim_customers"}));
}

TEST(WaveRecord, AFailedWaveWithNothingFailedSkipsEveryNodeHeldBack) {
  const Held h;  // dbt stopped before its nodes: nothing known to build on
  const HeldBack split = split_held_back(h.inputs, h.checks_of, {}, {}, true, {"fct_orders", "dim_customers"});
  EXPECT_TRUE(split.to_build_later.empty());
  EXPECT_EQ(split.skipped_below_failure, (Ids{"fct_orders", "dim_customers"}));
}

}  // namespace
}  // namespace ods::run
