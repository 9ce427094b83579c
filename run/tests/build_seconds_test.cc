// Time saved: each reused node's newest recorded build time, from one read of the ledger.
#include "ods/run/build_seconds.h"

#include <gtest/gtest.h>

#include "ods/run/run_details.h"
#include "ods/state/stores.h"

namespace ods::run {
namespace {

planner::ExecutionPlan two_node_plan() {
  planner::ExecutionPlan plan;
  plan.scope = "shop/dev";
  for (auto [name, action] : {std::pair{"a", planner::Action::build}, std::pair{"b", planner::Action::reuse}}) {
    planner::PlanEntry e;
    e.id = std::string("model.shop.") + name;
    e.name = name;
    e.action = action;
    plan.entries.push_back(e);
  }
  return plan;
}

void append(contracts::StateStore& store, const std::string& id, const RunDetails& details) {
  const std::string at = "2026-01-01T00:00:0" + id + "Z";
  contracts::RunRecord r{id, "shop/dev", at, at, "success", "", "{}", to_json(details), std::nullopt};
  ASSERT_TRUE(store.append_run(r).has_value());
}

TEST(BuildSeconds, TimeSavedTakesEachReusedNodesNewestTiming) {
  auto store = state::make_memory_store();
  const auto plan = two_node_plan();
  EXPECT_EQ(time_saved_seconds(*store, "shop/dev", plan), 0);
  RunDetails first, untimed, last;
  first.node_seconds = {{"model.shop.a", 7.0}, {"model.shop.b", 4.0}};
  untimed.summary = "no timings";
  last.node_seconds = {{"model.shop.b", 1.5}};
  append(*store, "1", first);
  append(*store, "2", untimed);
  append(*store, "3", last);
  EXPECT_EQ(time_saved_seconds(*store, "shop/dev", plan), 1.5) << "b's newest timing; a is built, not saved";
  EXPECT_EQ(time_saved_seconds(*store, "other/dev", plan), 0);
  const auto both = last_build_seconds(*store, "shop/dev", {"model.shop.a", "model.shop.b", "model.shop.c"});
  EXPECT_EQ(both, (std::map<std::string, double>{{"model.shop.a", 7.0}, {"model.shop.b", 1.5}}))
      << "each node from its newest timed entry; c was never timed";
}

// The cost rule's record: each id's newest seconds, and whether its newest mention skipped it.
TEST(BuildSeconds, EvidenceCostsTakeTheNewestSecondsAndTheNewestVerdict) {
  auto store = state::make_memory_store();
  EXPECT_TRUE(last_evidence_costs(*store, "shop/dev").seconds.empty());
  RunDetails first, second, untimed, last;
  first.exact_evidence_seconds = {{"source.raw.big", 9.0}, {"model.shop.a", 2.0}, {"model.shop.b", 1.0}};
  second.exact_evidence_seconds = {{"model.shop.a", 3.0}};
  second.exact_evidence_skipped = {"source.raw.big", "model.shop.b"};
  untimed.summary = "no costs";
  last.exact_evidence_seconds = {{"model.shop.b", 0.5}};  // b measured again since
  append(*store, "1", first);
  append(*store, "2", second);
  append(*store, "3", untimed);
  append(*store, "4", last);
  const RecordedEvidenceCosts costs = last_evidence_costs(*store, "shop/dev");
  EXPECT_EQ(costs.seconds,
            (std::map<std::string, double>{{"source.raw.big", 9.0}, {"model.shop.a", 3.0}, {"model.shop.b", 0.5}}));
  EXPECT_EQ(costs.skipped, (std::set<std::string>{"source.raw.big"})) << "b was read again after it was skipped";
}

TEST(BuildSeconds, UnreadableDetailsCountNothing) {
  auto store = state::make_memory_store();
  contracts::RunRecord r{"1",
                         "shop/dev",
                         "2026-01-01T00:00:01Z",
                         "2026-01-01T00:00:01Z",
                         "success",
                         "",
                         "{}",
                         R"({"node_seconds": "not an object"})",
                         std::nullopt};
  ASSERT_TRUE(store->append_run(r).has_value());
  EXPECT_EQ(time_saved_seconds(*store, "shop/dev", two_node_plan()), 0);
}

}  // namespace
}  // namespace ods::run
