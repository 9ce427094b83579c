// The waves of early cutoff: where the cost model draws a boundary, and where it doesn't.
#include "ods/run/cutoff_waves.h"

#include <gtest/gtest.h>

namespace ods::run {
namespace {

using Ids = std::vector<std::string>;

// stg (built for new data) -> mid -> top, and other (built for code) beside them; `reused`
// reads stg but is reused.
struct Fixture {
  planner::ProjectInputs inputs;
  planner::ExecutionPlan plan;

  Fixture(const std::string& stg_reason = "new_upstream_data") {
    auto node = [&](const std::string& id, Ids parents) {
      planner::NodeInput n;
      n.id = id;
      n.name = id;
      n.resource_type = "model";
      n.parents = std::move(parents);
      inputs.nodes.push_back(n);
    };
    node("stg", {"source.raw"});
    node("mid", {"stg"});
    node("top", {"mid"});
    node("other", {"source.raw"});
    node("reused", {"stg"});
    auto entry = [&](const std::string& id, planner::Action action, const std::string& code) {
      planner::PlanEntry e;
      e.id = id;
      e.name = id;
      e.resource_type = "model";
      e.action = action;
      e.reasons.push_back({code, ""});
      plan.entries.push_back(e);
    };
    entry("other", planner::Action::build, "fingerprint_changed");
    entry("stg", planner::Action::build, stg_reason);
    entry("mid", planner::Action::build, "new_upstream_data");
    entry("top", planner::Action::build, "new_upstream_data");
    entry("reused", planner::Action::reuse, "unchanged");
  }
};

const std::map<std::string, double> kSeconds{{"stg", 1}, {"mid", 20}, {"top", 30}, {"other", 5}};

TEST(CutoffWaves, BoundaryWhereTheSparedDescendantsCostMoreThanTheCall) {
  Fixture f;
  Wave w = next_wave(f.inputs, f.plan, kSeconds, 10.0, CutoffMode::automatic, true);
  EXPECT_EQ(w.now, (Ids{"other", "stg"}));
  EXPECT_EQ(w.later, (Ids{"mid", "top"}));  // mid is a candidate too, but below stg: judged next wave
  EXPECT_EQ(w.candidates, (Ids{"stg"}));
  EXPECT_DOUBLE_EQ(w.spare_seconds, 50.0);
  EXPECT_NE(w.why.find("wave boundary"), std::string::npos) << w.why;
}

TEST(CutoffWaves, NoBoundaryWhenTheCallCostsMore) {
  Fixture f;
  Wave w = next_wave(f.inputs, f.plan, kSeconds, 50.0, CutoffMode::automatic, true);
  EXPECT_EQ(w.now, (Ids{"other", "stg", "mid", "top"}));
  EXPECT_TRUE(w.later.empty());
  EXPECT_NE(w.why.find("not more than another dbt call (50.0 s)"), std::string::npos) << w.why;
}

TEST(CutoffWaves, UnknownDurationsNeverPayForACall) {
  Fixture f;
  Wave w = next_wave(f.inputs, f.plan, {}, 0.5, CutoffMode::automatic, true);
  EXPECT_TRUE(w.later.empty());
  EXPECT_EQ(w.now.size(), 4u);
}

TEST(CutoffWaves, AlwaysDrawsTheBoundaryWhateverTheCost) {
  Fixture f;
  Wave w = next_wave(f.inputs, f.plan, {}, 1000.0, CutoffMode::always, true);
  EXPECT_EQ(w.later, (Ids{"mid", "top"}));
}

TEST(CutoffWaves, OffAndUnmeasurableContentMeanOneWave) {
  Fixture f;
  EXPECT_TRUE(next_wave(f.inputs, f.plan, kSeconds, 0, CutoffMode::off, true).later.empty());
  Wave w = next_wave(f.inputs, f.plan, kSeconds, 0, CutoffMode::always, false);
  EXPECT_TRUE(w.later.empty());
  EXPECT_NE(w.why.find("can't be fingerprinted"), std::string::npos) << w.why;
}

TEST(CutoffWaves, OnlyNodesBuiltForNewUpstreamDataAreCandidates) {
  Fixture f("relation_missing");
  Wave w = next_wave(f.inputs, f.plan, kSeconds, 0, CutoffMode::always, true);
  // mid is built only for new data and has top below it: the boundary is after mid.
  EXPECT_EQ(w.candidates, (Ids{"mid"}));
  EXPECT_EQ(w.later, (Ids{"top"}));
}

TEST(CutoffWaves, ModeWords) {
  EXPECT_EQ(*cutoff_mode_from_string("auto"), CutoffMode::automatic);
  EXPECT_EQ(*cutoff_mode_from_string("always"), CutoffMode::always);
  EXPECT_EQ(*cutoff_mode_from_string("off"), CutoffMode::off);
  auto bad = cutoff_mode_from_string("sometimes");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, "usage");
  EXPECT_NE(bad.error().message.find("'sometimes'"), std::string::npos);
}

// Issue 27: where the content covers the columns, a node built for a code change is a candidate
// too (its readers wait for its output); where it doesn't, it never is.
TEST(CutoffWaves, ACodeChangeIsACandidateOnlyWhereTheContentCoversTheColumns) {
  Fixture f("fingerprint_changed");
  Wave rows_only = next_wave(f.inputs, f.plan, kSeconds, 0, CutoffMode::always, true, false);
  EXPECT_EQ(rows_only.candidates, (Ids{"mid"}));  // mid: new_upstream_data, top below it
  Wave w = next_wave(f.inputs, f.plan, kSeconds, 0, CutoffMode::always, true, true);
  EXPECT_EQ(w.candidates, (Ids{"stg"}));
  EXPECT_EQ(w.later, (Ids{"mid", "top"}));
  EXPECT_NE(w.why.find("a code change"), std::string::npos) << w.why;
  EXPECT_TRUE(cutoff_candidate_reason("upstream_code_changed", true));
  EXPECT_TRUE(cutoff_candidate_reason("incomplete_fingerprint", true));
  EXPECT_FALSE(cutoff_candidate_reason("never_built", true));  // nothing read it before
  EXPECT_FALSE(cutoff_candidate_reason("fingerprint_changed", false));
  EXPECT_TRUE(cutoff_candidate_reason("new_upstream_data", false));
  // Rebuilt after a write outside ODS: its readers read ODS's earlier build, whatever covers the columns.
  EXPECT_TRUE(cutoff_candidate_reason("relation_changed_outside", false));
}

// In `auto`, a model whose own code was edited is expected to come out different: it builds
// with its readers, and their content decides what lies below them. `always` keeps the boundary
// right after it.
TEST(CutoffWaves, AnEditedModelBuildsWithItsReadersInAuto) {
  Fixture f("fingerprint_changed");                                  // stg edited; mid and top below it
  f.plan.entries[2].reasons.front().code = "upstream_code_changed";  // mid reads the edited stg
  Wave w = next_wave(f.inputs, f.plan, kSeconds, 10.0, CutoffMode::automatic, true, true);
  EXPECT_EQ(w.candidates, (Ids{"mid"}));
  EXPECT_EQ(w.now, (Ids{"other", "stg", "mid"}));
  EXPECT_EQ(w.later, (Ids{"top"}));
  EXPECT_NE(w.why.find("1 edited model(s) build with their readers"), std::string::npos) << w.why;
  Wave always = next_wave(f.inputs, f.plan, kSeconds, 10.0, CutoffMode::always, true, true);
  EXPECT_EQ(always.candidates, (Ids{"stg"}));
  EXPECT_EQ(always.later, (Ids{"mid", "top"}));
}

TEST(CutoffWaves, AnEditedModelWhoseReadersHaveNothingBelowIsOneWave) {
  Fixture f("fingerprint_changed");
  f.plan.entries[2].reasons.front().code = "upstream_code_changed";
  f.plan.entries[3].action = planner::Action::reuse;  // top reused: mid has nothing below it
  Wave w = next_wave(f.inputs, f.plan, kSeconds, 0.0, CutoffMode::automatic, true, true);
  EXPECT_TRUE(w.later.empty());
  EXPECT_NE(w.why.find("edited models build with their readers"), std::string::npos) << w.why;
}

// A node whose content is too costly to measure (evidence_cost.h) is no candidate: nothing would
// decide its descendants, so they build with it (the next candidate below it decides its own),
// and the sentence says why.
TEST(CutoffWaves, ANodeLeftUnmeasuredIsNoCandidate) {
  Fixture f;
  std::map<std::string, std::string> unmeasured{{"stg", "measuring its content took 60.00 s ..."}};
  Wave w = next_wave(f.inputs, f.plan, kSeconds, 10.0, CutoffMode::automatic, true, false, unmeasured);
  EXPECT_EQ(w.candidates, (Ids{"mid"})) << w.why;
  EXPECT_EQ(w.now, (Ids{"other", "stg", "mid"}));
  EXPECT_EQ(w.later, (Ids{"top"}));
  EXPECT_NE(w.why.find("1 node(s) with descendants to spare are not measured"), std::string::npos) << w.why;
  unmeasured.emplace("mid", "measuring its content took 60.00 s ...");
  w = next_wave(f.inputs, f.plan, kSeconds, 10.0, CutoffMode::automatic, true, false, unmeasured);
  EXPECT_TRUE(w.later.empty()) << w.why;
  EXPECT_EQ(w.now, (Ids{"other", "stg", "mid", "top"}));
  EXPECT_NE(w.why.find("2 node(s) with descendants to spare are not measured"), std::string::npos) << w.why;
}

// After a wave, another one costs what that wave's calls cost besides their nodes: the build
// call's wall time less its nodes' span, plus the content call. A build that ran no node
// measures nothing, and the estimate stands.
TEST(CutoffWaves, AnotherWaveCostsWhatTheLastWavesCallsCostBesidesTheirNodes) {
  EXPECT_DOUBLE_EQ(measured_wave_seconds(30.0, 26.5, 1.2, 9.0), 4.7);
  EXPECT_DOUBLE_EQ(measured_wave_seconds(30.0, 0.0, 1.2, 9.0), 9.0);
  EXPECT_DOUBLE_EQ(measured_wave_seconds(2.0, 2.5, 1.2, 9.0), 1.2);  // clock skew never makes it negative
}

}  // namespace
}  // namespace ods::run
