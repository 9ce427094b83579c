// The dbt selector forms `ods state plan/run/test --select/--exclude` and `ods pod` accept, over
// hand-made planner inputs and a small manifest.json: names and graph operators, tag:, path:
// (directory, file, glob, bare path), config.<key>: (strings, booleans, lists, nested keys),
// --select minus --exclude, and the refused forms, each with a message naming the selector.
#include "ods/dbt/selector.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

namespace ods::dbt {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Ids = std::vector<std::string>;

planner::NodeInput node(const std::string& name, Ids parents) {
  planner::NodeInput n;
  n.id = "model.shop." + name;
  n.name = name;
  n.resource_type = "model";
  n.parents = std::move(parents);
  return n;
}

class SelectorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    inputs_.nodes = {node("stg_orders", {"source.shop.raw.orders"}), node("stg_customers", {}),
                     node("fct_orders", {"model.shop.stg_orders"}), node("orders_daily", {"model.shop.fct_orders"})};
    planner::SourceInput orders;
    orders.id = "source.shop.raw.orders";
    orders.name = "raw.orders";
    inputs_.sources = {orders};
    const json manifest = json::parse(R"({
      "metadata": {"dbt_version": "1.10.15"},
      "nodes": {
        "model.shop.stg_orders": {"tags": ["staging", "daily"], "original_file_path": "models/staging/stg_orders.sql",
          "config": {"materialized": "view", "enabled": true, "meta": {"owner": "sales"}}, "raw_code": "select 1"},
        "model.shop.stg_customers": {"tags": ["staging"], "original_file_path": "models/staging/stg_customers.sql",
          "config": {"materialized": "view", "enabled": true, "grants": {"select": ["analyst"]}}},
        "model.shop.fct_orders": {"tags": [], "original_file_path": "models/marts/fct_orders.sql",
          "config": {"materialized": "table", "enabled": true, "tags": ["finance"]}},
        "model.shop.orders_daily": {"tags": ["daily"], "original_file_path": "models/marts/orders_daily.sql",
          "config": {"materialized": "incremental", "enabled": false}}},
      "sources": {
        "source.shop.raw.orders": {"tags": ["raw"], "original_file_path": "models/staging/_sources.yml", "config": {}}}
    })");
    dir_ = fs::temp_directory_path() / ("ods-selector-test-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    manifest_ = dir_ / "manifest.json";
    std::ofstream(manifest_) << manifest.dump();
  }
  void TearDown() override { fs::remove_all(dir_); }

  Ids select(const std::string& expression) {
    auto selected = resolve_selection(inputs_, expression, manifest_);
    EXPECT_TRUE(selected) << expression << ": " << selected.error().message;
    return selected ? *selected : Ids{"(error)"};
  }
  std::string refusal(const std::string& expression, const fs::path& manifest) {
    auto selected = resolve_selection(inputs_, expression, manifest);
    EXPECT_FALSE(selected) << expression << " was accepted";
    if (selected) return "";
    EXPECT_EQ(selected.error().code, "usage");
    return selected.error().message;
  }
  std::string refusal(const std::string& expression) { return refusal(expression, manifest_); }

  planner::ProjectInputs inputs_;
  fs::path dir_, manifest_;
};

TEST_F(SelectorTest, NamesIdsSourcesAndGraphOperators) {
  EXPECT_EQ(select("stg_orders"), (Ids{"model.shop.stg_orders"}));
  EXPECT_EQ(select("model.shop.fct_orders"), (Ids{"model.shop.fct_orders"}));
  EXPECT_EQ(select("stg_orders+1"), (Ids{"model.shop.fct_orders", "model.shop.stg_orders"}));
  EXPECT_EQ(select("+fct_orders"), (Ids{"model.shop.fct_orders", "model.shop.stg_orders"}));
  EXPECT_EQ(select("source:raw+"), (Ids{"model.shop.fct_orders", "model.shop.orders_daily", "model.shop.stg_orders"}));
}

TEST_F(SelectorTest, TagSelectsTheNodesCarryingTheTagWithOperators) {
  EXPECT_EQ(select("tag:staging"), (Ids{"model.shop.stg_customers", "model.shop.stg_orders"}));
  EXPECT_EQ(select("tag:daily"), (Ids{"model.shop.orders_daily", "model.shop.stg_orders"}));
  EXPECT_EQ(select("tag:raw+1"), (Ids{"model.shop.stg_orders"}));  // a source's tag, then its readers
  auto checks = resolve_check_selection(inputs_, "tag:raw", manifest_);
  ASSERT_TRUE(checks) << checks.error().message;
  EXPECT_EQ(*checks, (Ids{"source.shop.raw.orders"}));
}

TEST_F(SelectorTest, PathSelectsByDirectoryFileOrGlobAndABarePathIsAPath) {
  EXPECT_EQ(select("path:models/marts"), (Ids{"model.shop.fct_orders", "model.shop.orders_daily"}));
  EXPECT_EQ(select("path:models/marts/"), (Ids{"model.shop.fct_orders", "model.shop.orders_daily"}));
  EXPECT_EQ(select("path:models/staging/stg_orders.sql"), (Ids{"model.shop.stg_orders"}));
  EXPECT_EQ(select("path:models/*/orders_*.sql"), (Ids{"model.shop.orders_daily"}));
  EXPECT_EQ(select("models/staging"), (Ids{"model.shop.stg_customers", "model.shop.stg_orders"}));
  EXPECT_NE(refusal("path:models/mart").find("'path:models/mart' matches no node"), std::string::npos)
      << "a directory prefix is not a directory";
}

TEST_F(SelectorTest, ConfigMatchesStringsBooleansListsAndNestedKeys) {
  EXPECT_EQ(select("config.materialized:table"), (Ids{"model.shop.fct_orders"}));
  EXPECT_EQ(select("config.materialized:view"), (Ids{"model.shop.stg_customers", "model.shop.stg_orders"}));
  EXPECT_EQ(select("config.enabled:False"), (Ids{"model.shop.orders_daily"}));
  EXPECT_EQ(select("config.tags:finance"), (Ids{"model.shop.fct_orders"}));
  EXPECT_EQ(select("config.meta.owner:sales"), (Ids{"model.shop.stg_orders"}));
  EXPECT_EQ(select("config.grants.select:analyst+"), (Ids{"model.shop.stg_customers"}));
  EXPECT_NE(refusal("config.materialized:seed").find("'config.materialized:seed' matches no node"), std::string::npos);
}

TEST_F(SelectorTest, ExcludeIsTakenFromTheSelectionOrFromEverything) {
  auto selection = resolve_select_exclude(inputs_, "tag:staging tag:daily", "path:models/marts", manifest_);
  ASSERT_TRUE(selection) << selection.error().message;
  EXPECT_EQ(selection->nodes, (Ids{"model.shop.stg_customers", "model.shop.stg_orders"}));
  auto everything_but = resolve_select_exclude(inputs_, "", "config.materialized:view source:raw", manifest_);
  ASSERT_TRUE(everything_but) << everything_but.error().message;
  EXPECT_EQ(everything_but->nodes, (Ids{"model.shop.fct_orders", "model.shop.orders_daily"}));
  EXPECT_EQ(everything_but->checks, (Ids{"model.shop.fct_orders", "model.shop.orders_daily"}));
  auto bad = resolve_select_exclude(inputs_, "", "tag:", manifest_);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("--exclude: 'tag:' has no value"), std::string::npos) << bad.error().message;
}

TEST_F(SelectorTest, UnsupportedOrMalformedSelectorsAreRefusedByName) {
  EXPECT_NE(refusal("resource_type:model").find("--select: selector 'resource_type:model' is not supported"),
            std::string::npos);
  EXPECT_NE(refusal("stg_orders,fct_orders").find("selector 'stg_orders,fct_orders' is not supported"),
            std::string::npos);
  EXPECT_NE(refusal("@fct_orders").find("selector '@fct_orders' is not supported"), std::string::npos);
  EXPECT_NE(refusal("tag:nightly").find("'tag:nightly' matches no node"), std::string::npos);
  EXPECT_NE(refusal("path:").find("'path:' has no value"), std::string::npos);
  EXPECT_NE(refusal("config:table").find("'config:table' needs a config key"), std::string::npos);
  EXPECT_NE(refusal("tag:daily", dir_ / "missing.json").find("missing.json: cannot read the manifest"),
            std::string::npos);
  EXPECT_NE(refusal("tag:daily", {}).find("'tag:daily' needs the project's manifest"), std::string::npos);
  std::ofstream(dir_ / "broken.json") << "{\"nodes\": ";
  EXPECT_NE(refusal("tag:daily", dir_ / "broken.json").find("broken.json: not a JSON manifest"), std::string::npos);
}

}  // namespace
}  // namespace ods::dbt
