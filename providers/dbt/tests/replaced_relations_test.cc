// Which builds replace their relation (planner::NodeInput::build_replaces_relation) and which
// models are views (DbtProject::view_models): what a warehouse that binds views to the relations
// they read needs to know which views a run's builds drop (docs/warehouses.md, PostgreSQL).
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "fixture_util.h"
#include "ods/dbt/artifacts.h"

namespace ods::dbt {
namespace {

using testing::load_fixture;
using testing::OJson;
using testing::read_ok;

std::map<std::string, bool> replacing(const DbtProject& project) {
  std::map<std::string, bool> out;
  for (const auto& node : project.inputs.nodes) out[node.id] = node.build_replaces_relation;
  return out;
}

TEST(ReplacedRelations, TablesViewsAndCustomMaterializationsReplaceTheirRelation) {
  OJson manifest = load_fixture("build_manifest.json");
  manifest["nodes"]["model.shop.impure"]["config"]["materialized"] = "materialized_view";
  manifest["nodes"]["model.shop.contracted"]["config"]["materialized"] = "my_custom";
  manifest["nodes"]["model.shop.hooked"]["config"]["materialized"] = "incremental";
  const DbtProject project = read_ok(manifest);
  const auto replaces = replacing(project);
  EXPECT_TRUE(replaces.at("model.shop.orders"));      // table
  EXPECT_TRUE(replaces.at("model.shop.stg_orders"));  // view
  EXPECT_TRUE(replaces.at("model.shop.impure"));      // materialized view
  EXPECT_TRUE(replaces.at("model.shop.contracted"));  // unknown: the safe side
  EXPECT_FALSE(replaces.at("model.shop.hooked"));     // incremental: rows into the relation it has
  EXPECT_FALSE(replaces.at("seed.shop.customers"));   // truncated and reloaded
  EXPECT_FALSE(replaces.at("snapshot.shop.customers_snap"));
  EXPECT_EQ(project.view_models, (std::vector<std::string>{"model.shop.impure", "model.shop.stg_orders"}));
  for (const auto& node : project.inputs.nodes)  // the warehouse's part is the caller's
    EXPECT_FALSE(node.dropped_when_parent_replaced) << node.id;
}

TEST(ReplacedRelations, AConfiguredFullRefreshReplacesAnIncrementalModelOrASeed) {
  OJson manifest = load_fixture("build_manifest.json");
  manifest["nodes"]["model.shop.hooked"]["config"]["materialized"] = "incremental";
  manifest["nodes"]["model.shop.hooked"]["config"]["full_refresh"] = true;
  manifest["nodes"]["seed.shop.customers"]["config"]["full_refresh"] = true;
  const auto replaces = replacing(read_ok(manifest));
  EXPECT_TRUE(replaces.at("model.shop.hooked"));
  EXPECT_TRUE(replaces.at("seed.shop.customers"));
}

}  // namespace
}  // namespace ods::dbt
