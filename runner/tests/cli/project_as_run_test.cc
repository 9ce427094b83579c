// code_differences (project_as_run.h): which nodes and sources a re-read manifest has with
// other code than the planned project, so a dbt process that parsed an edited file is
// recorded as it built (rule 2).
#include <gtest/gtest.h>

#include "project_as_run.h"

namespace ods::cli {
namespace {

planner::ProjectInputs two_models_one_source() {
  planner::ProjectInputs in;
  planner::NodeInput a;
  a.id = "model.p.a";
  a.name = "a";
  a.resource_type = "model";
  a.parents = {"source.p.raw.t"};
  a.fingerprint.add("sql", "select 1");
  planner::NodeInput b = a;
  b.id = "model.p.b";
  b.name = "b";
  b.parents = {"model.p.a"};
  in.nodes = {a, b};
  planner::SourceInput s;
  s.id = "source.p.raw.t";
  s.name = "raw.t";
  in.sources = {s};
  return in;
}

TEST(CodeDifferences, TheSameCodeDiffersNowhereWhateverTheDataVersions) {
  const auto planned = two_models_one_source();
  auto built = planned;
  built.sources[0].version = planner::DataVersion{};  // evidence, not code
  built.nodes[0].raw_digest = "cosmetic";
  EXPECT_TRUE(code_differences(planned, built).empty());
}

TEST(CodeDifferences, NamesEachNodeOrSourceWhoseCodeOrChecksDiffer) {
  const auto planned = two_models_one_source();
  auto built = planned;
  built.nodes[1].fingerprint.add("sql", "select 2");
  EXPECT_EQ(code_differences(planned, built), std::vector<std::string>{"b"});
  built = planned;
  built.nodes[0].checks_digest = "other tests";
  built.sources[0].checks_digest = "other tests";
  EXPECT_EQ(code_differences(planned, built), (std::vector<std::string>{"a", "raw.t"}));
  built = planned;
  built.nodes[0].parents.push_back("model.p.c");
  built.nodes[1].always_build.push_back("reads env_var");
  EXPECT_EQ(code_differences(planned, built), (std::vector<std::string>{"a", "b"}));
}

TEST(CodeDifferences, ANodeInOneProjectOnlyDiffers) {
  const auto planned = two_models_one_source();
  auto built = planned;
  built.nodes.pop_back();
  planner::NodeInput c = planned.nodes[0];
  c.id = "model.p.c";
  c.name = "c";
  built.nodes.push_back(c);
  EXPECT_EQ(code_differences(planned, built), (std::vector<std::string>{"b", "c"}));
}

TEST(NameList, ShowsTheFirstNamesAndCountsTheRest) {
  EXPECT_EQ(name_list({"a"}), "a");
  EXPECT_EQ(name_list({"a", "b", "c"}, 2), "a, b and 1 more");
}

}  // namespace
}  // namespace ods::cli
