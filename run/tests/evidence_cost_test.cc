// The cost rule: exact evidence is read only while it costs less than building what reads it,
// with a hysteresis, and unknown seconds on either side read it as before.
#include "ods/run/evidence_cost.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace ods::run {
namespace {

using Ids = std::vector<std::string>;

// source.raw -> stg -> mid -> top; stg -> side.
planner::ProjectInputs chain() {
  planner::ProjectInputs inputs;
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
  node("side", {"stg"});
  return inputs;
}

const std::map<std::string, double> kBuilt{{"stg", 4}, {"mid", 2}, {"top", 1}, {"side", 0.5}};

TEST(EvidenceCost, CostsMoreThanWhatItCouldSpareWithHysteresis) {
  EXPECT_FALSE(evidence_costs_more(1.0, 3.5, false));
  EXPECT_TRUE(evidence_costs_more(4.0, 3.5, false));
  EXPECT_FALSE(evidence_costs_more(3.5, 3.5, false)) << "equal: read it (the exact one is the default)";
  // Judged too costly last time: back only at half of what it could spare.
  EXPECT_TRUE(evidence_costs_more(3.0, 3.5, true));
  EXPECT_FALSE(evidence_costs_more(1.75, 3.5, true));
}

TEST(EvidenceCost, DownstreamSumsEveryNodeBelowOnce) {
  const Downstream below(chain());
  auto stg = below.seconds_below("stg", kBuilt, 1e9);
  EXPECT_DOUBLE_EQ(stg.seconds, 3.5);
  EXPECT_FALSE(stg.unknown);
  auto source = below.seconds_below("source.raw", kBuilt, 1e9);
  EXPECT_DOUBLE_EQ(source.seconds, 7.5);
  auto top = below.seconds_below("top", kBuilt, 1e9);
  EXPECT_DOUBLE_EQ(top.seconds, 0);
  EXPECT_FALSE(top.unknown);
  auto partial = below.seconds_below("stg", {{"mid", 2}}, 1e9);
  EXPECT_TRUE(partial.unknown) << "top and side were never timed";
  auto enough = below.seconds_below("stg", {{"mid", 2}}, 1.0);
  EXPECT_FALSE(enough.unknown) << "past `enough` the rest doesn't matter";
  Ids nodes = below.nodes_below({"mid", "stg"});
  std::sort(nodes.begin(), nodes.end());
  EXPECT_EQ(nodes, (Ids{"mid", "side", "top"}));
}

TEST(EvidenceCost, MeasuresWhatIsWorthItAndSaysWhyNotTheRest) {
  const Downstream below(chain());
  RecordedEvidenceCosts recorded;
  recorded.seconds = {{"stg", 5.0}, {"mid", 0.2}};  // stg: 5 s to measure, 3.5 s below it
  const ExactChoice choice =
      choose_exact(below, {"stg", "mid", "never_measured"}, recorded, kBuilt, "measuring its content");
  EXPECT_EQ(choice.read, (Ids{"mid", "never_measured"}));
  ASSERT_TRUE(choice.unread.contains("stg"));
  EXPECT_NE(choice.unread.at("stg").find("5.00 s"), std::string::npos) << choice.unread.at("stg");
  EXPECT_NE(choice.unread.at("stg").find("3.50 s"), std::string::npos) << choice.unread.at("stg");
}

TEST(EvidenceCost, UnknownBuildTimesBelowReadTheEvidenceAsBefore) {
  const Downstream below(chain());
  RecordedEvidenceCosts recorded;
  recorded.seconds = {{"stg", 5.0}};
  EXPECT_EQ(choose_exact(below, {"stg"}, recorded, {{"mid", 2}}, "measuring its content").read, (Ids{"stg"}));
}

TEST(EvidenceCost, SkippedLastTimeStaysSkippedUntilItCostsHalf) {
  const Downstream below(chain());
  RecordedEvidenceCosts recorded;
  recorded.seconds = {{"stg", 3.0}};  // below 3.5: read, unless skipped last time
  EXPECT_EQ(choose_exact(below, {"stg"}, recorded, kBuilt, "measuring its content").read, (Ids{"stg"}));
  recorded.skipped = {"stg"};
  const ExactChoice choice = choose_exact(below, {"stg"}, recorded, kBuilt, "measuring its content");
  EXPECT_TRUE(choice.read.empty());
  EXPECT_NE(choice.unread.at("stg").find("half"), std::string::npos) << choice.unread.at("stg");
  recorded.seconds["stg"] = 1.5;
  EXPECT_EQ(choose_exact(below, {"stg"}, recorded, kBuilt, "measuring its content").read, (Ids{"stg"}));
}

}  // namespace
}  // namespace ods::run
