// What dbt build skips below failures (failure_reach.h): a failed or skipped node's readers,
// and the readers of every node and source a failed test reads.
#include "ods/run/failure_reach.h"

#include <gtest/gtest.h>

namespace ods::run {
namespace {

using Ids = std::vector<std::string>;

// source.raw -> a -> a_top; source.raw -> b -> b_top; a and b -> both
struct Graph {
  planner::ProjectInputs inputs;
  std::map<std::string, Ids> checks_of{
      {"a", {"test.a_unique"}}, {"b", {"test.a_to_b", "test.b_unique"}}, {"source.raw", {"test.raw_fresh"}}};
  Graph() {
    auto node = [&](const std::string& id, Ids parents) {
      planner::NodeInput n;
      n.id = id;
      n.parents = std::move(parents);
      inputs.nodes.push_back(n);
    };
    node("a", {"source.raw"});
    node("a_top", {"a"});
    node("b", {"source.raw"});
    node("b_top", {"b"});
    node("both", {"a", "b"});
    checks_of["a"].push_back("test.a_to_b");
  }
  std::set<std::string> below(const Ids& nodes, const Ids& checks) const {
    return reach_of_failures(inputs, checks_of, nodes, checks).below;
  }
};

TEST(FailureReach, AFailedNodeSkipsItsReadersOnly) {
  const Graph g;
  EXPECT_EQ(g.below({"a"}, {}), (std::set<std::string>{"a_top", "both"}));
  EXPECT_TRUE(g.below({}, {}).empty());
}

TEST(FailureReach, AFailedTestGatesTheReadersOfWhatItReadsNotTheNodeItself) {
  const Graph g;
  EXPECT_EQ(g.below({}, {"test.b_unique"}), (std::set<std::string>{"b_top", "both"}));
}

TEST(FailureReach, ATestOfTwoNodesGatesOnlyWhatReadsBoth) {
  const Graph g;  // dbt's test edges: a node below every node the test reads
  EXPECT_EQ(g.below({}, {"test.a_to_b"}), (std::set<std::string>{"both"}));
}

TEST(FailureReach, AFailedSourceTestGatesEveryReaderOfTheSource) {
  const Graph g;
  EXPECT_EQ(g.below({}, {"test.raw_fresh"}), (std::set<std::string>{"a", "a_top", "b", "b_top", "both"}));
}

TEST(FailureReach, ATestWhoseReadsAreUnknownGatesEverything) {
  const Graph g;
  const auto reach = reach_of_failures(g.inputs, g.checks_of, {}, {"test.on_an_ephemeral_model"});
  EXPECT_TRUE(reach.unknown);
  EXPECT_TRUE(reach.contains("b_top"));
  EXPECT_FALSE(reach_of_failures(g.inputs, g.checks_of, {}, {"test.a_unique"}).contains("b_top"));
}

}  // namespace
}  // namespace ods::run
