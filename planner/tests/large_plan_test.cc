// A project large enough that plan() prepares its nodes on two threads: every node gets the
// decision and the evidence it gets one at a time (its own digest, its own diff).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ods/planner/planner.h"

using namespace ods::planner;

namespace {

constexpr int kPairs = 3000;  // 6000 nodes: more than plan() prepares on one thread

std::string seed_id(int i) { return "seed.big.s" + std::to_string(i); }
std::string model_id(int i) { return "model.big.m" + std::to_string(i); }

NodeInput node(const std::string& id, const std::string& type, std::vector<std::string> parents) {
  NodeInput n;
  n.id = id;
  n.name = id.substr(id.rfind('.') + 1);
  n.resource_type = type;
  n.parents = std::move(parents);
  n.fingerprint.add("scheme", "dbt/2");
  n.fingerprint.add(type == "seed" ? "file" : "sql", "code of " + id);
  n.self_contained = type == "seed";
  return n;
}

// Pairs of a seed and the model that reads it.
ProjectInputs project() {
  ProjectInputs in;
  in.project = "big";
  in.target = "dev";
  in.target_identity = "duckdb/big/main";
  for (int i = 0; i < kPairs; ++i) {
    in.nodes.push_back(node(seed_id(i), "seed", {}));
    in.nodes.push_back(node(model_id(i), "model", {seed_id(i)}));
  }
  return in;
}

const PlanEntry& entry(const ExecutionPlan& plan, const std::string& id) {
  for (const auto& e : plan.entries)
    if (e.id == id) return e;
  throw std::runtime_error("no entry " + id);
}

std::string fingerprint_evidence(const PlanEntry& e) {
  for (const auto& ev : e.evidence)
    if (ev.kind == "fingerprint") return ev.value;
  return "";
}

TEST(LargePlan, EveryNodeGetsItsOwnDigestDiffAndDecision) {
  ProjectInputs in = project();
  RunOutcome run;
  run.run_id = "run-1";
  run.started_at = "2026-11-29T10:00:00Z";
  for (const auto& n : in.nodes) run.node_status[n.id] = "success";
  auto recorded = record(in, nullptr, run);
  ASSERT_TRUE(recorded) << recorded.error().message;

  for (int i = 0; i < kPairs; i += 3) in.nodes[2 * i].fingerprint.add("file", "edited seed " + std::to_string(i));
  auto plan = ods::planner::plan(in, &*recorded, PlanOptions{std::nullopt, "2026-11-29T11:00:00Z", std::nullopt});
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_EQ(plan->entries.size(), in.nodes.size());

  for (int i = 0; i < kPairs; ++i) {
    const bool edited = i % 3 == 0;
    const PlanEntry& seed = entry(*plan, seed_id(i));
    const PlanEntry& model = entry(*plan, model_id(i));
    EXPECT_EQ(fingerprint_evidence(seed), in.nodes[2 * i].fingerprint.digest()) << seed.id;
    EXPECT_EQ(fingerprint_evidence(model), in.nodes[2 * i + 1].fingerprint.digest()) << model.id;
    if (edited) {
      ASSERT_EQ(seed.action, Action::build) << seed.id;
      EXPECT_EQ(seed.reasons.front().code, "fingerprint_changed") << seed.id;
      EXPECT_NE(seed.reasons.front().message.find("file changed"), std::string::npos) << seed.reasons.front().message;
      ASSERT_EQ(model.action, Action::build) << model.id;
      EXPECT_EQ(model.reasons.front().code, "upstream_code_changed") << model.id;
    } else {
      EXPECT_EQ(seed.action, Action::reuse) << seed.id << ": " << seed.reasons.front().code;
      EXPECT_EQ(model.action, Action::reuse) << model.id << ": " << model.reasons.front().code;
    }
  }
}

}  // namespace
