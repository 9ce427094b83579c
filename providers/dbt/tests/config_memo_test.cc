// Configs converted once per distinct text (ConfigMemo): nodes that share a config text get
// what converting it anew would give, and a config that differs in any member is converted
// on its own.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "fixture_util.h"
#include "manifest_records.h"

namespace ods::dbt {
namespace {

using namespace ods::dbt::testing;

constexpr const char* kOrders = "model.shop.orders";

std::string config_component(const DbtProject& project, const std::string& id) {
  const auto* node = find_node(project, id);
  EXPECT_NE(node, nullptr) << id;
  return node == nullptr ? std::string() : node->fingerprint.components.at("config");
}

// The manifest with `copies` clones of orders (same config text) plus one clone per
// variant config, each named "<orders>_<suffix>".
OJson with_clones(int copies, const std::map<std::string, OJson>& variants) {
  OJson manifest = load_fixture("build_manifest.json");
  const OJson orders = manifest["nodes"][kOrders];
  auto add = [&](const std::string& suffix, const OJson& config) {
    OJson node = orders;
    node["unique_id"] = std::string(kOrders) + "_" + suffix;
    node["name"] = orders["name"].get<std::string>() + "_" + suffix;
    node["config"] = config;
    manifest["nodes"][std::string(kOrders) + "_" + suffix] = node;
  };
  for (int i = 0; i < copies; ++i) add("copy" + std::to_string(i), orders["config"]);
  for (const auto& [suffix, config] : variants) add(suffix, config);
  return manifest;
}

TEST(ConfigMemo, NodesSharingAConfigTextGetTheSameConfigComponent) {
  const DbtProject project = read_ok(with_clones(20, {}));
  const std::string expected = config_component(project, kOrders);
  ASSERT_FALSE(expected.empty());
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(config_component(project, std::string(kOrders) + "_copy" + std::to_string(i)), expected);
  }
}

TEST(ConfigMemo, AConfigThatDiffersInOneMemberIsConvertedOnItsOwn) {
  const OJson base = load_fixture("build_manifest.json")["nodes"][kOrders]["config"];
  OJson table = base;
  table["materialized"] = base["materialized"] == "view" ? "table" : "view";
  OJson hooked = base;
  hooked["pre-hook"] = OJson::array({OJson{{"sql", "select '{{ env_var(\"AUDIT\") }}'"}, {"transaction", true}}});
  OJson tagged = base;  // tags don't count in the component, but the text differs
  tagged["tags"] = OJson::array({"nightly"});
  const DbtProject project = read_ok(with_clones(5, {{"table", table}, {"hooked", hooked}, {"tagged", tagged}}));

  const std::string orders = config_component(project, kOrders);
  EXPECT_NE(config_component(project, std::string(kOrders) + "_table"), orders);
  EXPECT_NE(config_component(project, std::string(kOrders) + "_hooked"), orders);
  EXPECT_EQ(config_component(project, std::string(kOrders) + "_tagged"), orders);

  const auto* hooked_node = find_node(project, std::string(kOrders) + "_hooked");
  ASSERT_NE(hooked_node, nullptr);
  EXPECT_FALSE(hooked_node->always_build.empty());  // the hook reads env_var
  const auto* copy = find_node(project, std::string(kOrders) + "_copy0");
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->always_build, find_node(project, kOrders)->always_build);
}

TEST(ConfigMemo, RemembersUpToItsLimit) {
  internal::ConfigMemo memo;
  auto config = std::make_shared<const internal::Config>();
  for (std::size_t i = 0; i < internal::ConfigMemo::kMaxEntries; ++i)
    memo.remember("{\"n\":" + std::to_string(i) + "}", config);
  EXPECT_EQ(memo.find("{\"n\":0}"), config);
  EXPECT_EQ(memo.find("{\"n\": 0}"), nullptr);  // another text, even if the same JSON
  memo.remember("{\"over\":1}", config);
  EXPECT_EQ(memo.find("{\"over\":1}"), nullptr);
}

}  // namespace
}  // namespace ods::dbt
