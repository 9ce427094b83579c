// Which incremental models are compiled again after their first build, and what the record takes
// from that compile (incremental_recompile.h).
#include "ods/dbt/incremental_recompile.h"

#include <gtest/gtest.h>

#include "fixture_util.h"

namespace ods::dbt {
namespace {

using testing::load_fixture;
using testing::OJson;
using testing::read_ok;

planner::NodeInput node(const std::string& id, const std::string& sql) {
  planner::NodeInput n;
  n.id = id;
  n.name = id.substr(id.rfind('.') + 1);
  n.resource_type = "model";
  n.raw_digest = "raw of " + id;
  n.fingerprint.components = {{"scheme", "s"}, {"sql", sql}, {"config", "c"}, {"macros", "m"}, {"relation", "r"}};
  return n;
}

DbtProject incremental(std::vector<std::string> ids) {
  DbtProject p;
  p.incremental_models = std::move(ids);
  return p;
}

TEST(IncrementalRecompile, ReadsWhichModelsAreIncremental) {
  OJson manifest = load_fixture("build_manifest.json");
  manifest["nodes"]["model.shop.hooked"]["config"]["materialized"] = "incremental";
  manifest["nodes"]["model.shop.int_payments"]["config"]["materialized"] = "ephemeral";  // not planned
  const DbtProject project = read_ok(manifest);
  EXPECT_EQ(project.incremental_models, std::vector<std::string>{"model.shop.hooked"});
}

TEST(IncrementalRecompile, ChoosesBuiltIncrementalModelsWhoseRelationWasNotShownToExist) {
  const DbtProject p = incremental({"model.x.existed", "model.x.failed", "model.x.missing", "model.x.unchecked"});
  const std::map<std::string, std::string> status = {{"model.x.existed", "success"},
                                                     {"model.x.failed", "error"},
                                                     {"model.x.missing", "success"},
                                                     {"model.x.unchecked", "success"},
                                                     {"model.x.table", "success"}};
  const std::map<std::string, bool> exist = {
      {"model.x.existed", true}, {"model.x.failed", false}, {"model.x.missing", false}, {"model.x.table", false}};
  EXPECT_EQ(incremental_first_builds(p, status, exist),
            (std::vector<std::string>{"model.x.missing", "model.x.unchecked"}));
  // The probe gave no answer: whether they existed is unknown, so every built one is compiled again.
  EXPECT_EQ(incremental_first_builds(p, status, std::nullopt),
            (std::vector<std::string>{"model.x.existed", "model.x.missing", "model.x.unchecked"}));
  EXPECT_TRUE(incremental_first_builds(p, {}, exist).empty()) << "nothing built";
  // A view stood in its place: is_incremental() was false, so it is compiled again; a table or
  // a kind the listing doesn't name (Spark's) is as before.
  EXPECT_EQ(incremental_first_builds(p, status, exist, {{"model.x.existed", "view"}}),
            (std::vector<std::string>{"model.x.existed", "model.x.missing", "model.x.unchecked"}));
  EXPECT_EQ(incremental_first_builds(p, status, exist, {{"model.x.existed", "table"}}),
            (std::vector<std::string>{"model.x.missing", "model.x.unchecked"}));
}

TEST(IncrementalRecompile, TakesTheCodeOfAnUnchangedParseOnly) {
  planner::ProjectInputs recorded, recompiled;
  recorded.nodes = {node("model.x.a", "first"), node("model.x.edited", "first"), node("model.x.macro", "first"),
                    node("model.x.gone", "first"), node("model.x.incomplete", "first")};
  recorded.nodes[0].fingerprint.components["hook pre-hook 1"] = "keyed";  // the CLI's own: not in a re-read
  recompiled.nodes = {node("model.x.a", "incremental"), node("model.x.edited", "incremental"),
                      node("model.x.macro", "incremental"), node("model.x.incomplete", "x")};
  recompiled.nodes[1].raw_digest = "edited during the run";
  recompiled.nodes[2].fingerprint.components["macros"] = "a macro edited";
  recompiled.nodes[3].fingerprint.components.erase("sql");
  recompiled.nodes[3].incomplete = {"no compiled SQL: run dbt compile"};
  const std::vector<std::string> ids = {"model.x.a", "model.x.edited", "model.x.gone", "model.x.incomplete",
                                        "model.x.macro"};
  const RecompiledCode code = recompiled_code(recorded, recompiled, ids);
  EXPECT_EQ(code, (RecompiledCode{{"model.x.a", {{"sql", "incremental"}}}}));

  take_recompiled_code(recorded, code);
  EXPECT_EQ(recorded.nodes[0].fingerprint.components.at("sql"), "incremental");
  EXPECT_EQ(recorded.nodes[0].fingerprint.components.at("hook pre-hook 1"), "keyed") << "the rest kept";
  EXPECT_EQ(recorded.nodes[1].fingerprint.components.at("sql"), "first");
}

TEST(IncrementalRecompile, TakesAPythonModelsCompiledCode) {
  planner::ProjectInputs recorded, recompiled;
  recorded.nodes = {node("model.x.py", "")};
  recorded.nodes[0].fingerprint.components.erase("sql");
  recorded.nodes[0].fingerprint.components["compiled_code"] = "first";
  recompiled.nodes = recorded.nodes;
  recompiled.nodes[0].fingerprint.components["compiled_code"] = "incremental";
  EXPECT_EQ(recompiled_code(recorded, recompiled, {"model.x.py"}),
            (RecompiledCode{{"model.x.py", {{"compiled_code", "incremental"}}}}));
}

}  // namespace
}  // namespace ods::dbt
