// The compile key of an incremental model holds is_incremental() as true (docs/compile-key.md);
// after the probe, confirm_incremental_keys keeps it only where dbt's is_incremental() would be
// true, and takes back the recorded SQL a run took by it otherwise (rule 2: the node builds).
#include <gtest/gtest.h>

#include "keyed_compile.h"

namespace ods::cli {
namespace {

constexpr const char* kId = "model.shop.orders_daily";

planner::ProjectInputs one_incremental_model(bool sql_from_record) {
  planner::ProjectInputs inputs;
  planner::NodeInput n;
  n.id = kId;
  n.name = "orders_daily";
  n.resource_type = "model";
  n.relation = "\"shop\".\"main\".\"orders_daily\"";
  n.compile_key = "k1";
  n.compile_key_assumes_incremental = true;
  if (sql_from_record) {
    n.fingerprint.components["sql"] = "recorded";
    n.sql_from_run = "run-1";
  }
  inputs.nodes.push_back(n);
  return inputs;
}

const std::map<std::string, bool> kExists{{kId, true}};
const std::map<std::string, std::string> kTable{{kId, "table"}};

TEST(IncrementalKeys, AnExistingTableConfirmsTheKey) {
  auto inputs = one_incremental_model(true);
  EXPECT_TRUE(confirm_incremental_keys(inputs, kExists, kTable, "").empty());
  const auto& n = inputs.nodes[0];
  EXPECT_EQ(n.compile_key, "k1");
  EXPECT_EQ(n.fingerprint.components.at("sql"), "recorded");
  EXPECT_EQ(n.sql_from_run, "run-1");
  EXPECT_TRUE(n.incomplete.empty());
}

struct Unconfirmed {
  std::optional<std::map<std::string, bool>> exist;
  std::map<std::string, std::string> kinds;
  std::string full_refresh;
  std::string why;  // in the incomplete line
};

TEST(IncrementalKeys, AnythingElseTakesTheRecordedSqlBackAndClearsTheKey) {
  const std::vector<Unconfirmed> cases{
      {std::map<std::string, bool>{{kId, false}}, {}, "", "does not exist"},
      {kExists, {{kId, "view"}}, "", "is a view, not a table"},
      {kExists, {}, "", "of a kind the listing doesn't say"},
      {std::map<std::string, bool>{}, kTable, "", "could not check"},
      {std::nullopt, kTable, "", "could not check"},
      {kExists, kTable, "true", "DBT_FULL_REFRESH is set"},
  };
  for (const auto& c : cases) {
    auto inputs = one_incremental_model(true);
    EXPECT_EQ(confirm_incremental_keys(inputs, c.exist, c.kinds, c.full_refresh), std::vector<std::string>{kId})
        << c.why;
    const auto& n = inputs.nodes[0];
    EXPECT_TRUE(n.compile_key.empty()) << c.why << ": the SQL it records is not the key's";
    EXPECT_FALSE(n.fingerprint.components.contains("sql")) << c.why;
    EXPECT_TRUE(n.sql_from_run.empty()) << c.why;
    ASSERT_EQ(n.incomplete.size(), 1u) << c.why;
    EXPECT_NE(n.incomplete[0].find(c.why), std::string::npos) << n.incomplete[0];
  }
}

// Compiled in this run while its relation was missing: the SQL is the first-build form, so the
// key is not recorded with it; nothing is taken back (the compile's SQL is the evidence).
TEST(IncrementalKeys, ACompiledNodeOnlyLosesItsKey) {
  auto inputs = one_incremental_model(false);
  inputs.nodes[0].fingerprint.components["sql"] = "compiled";
  EXPECT_TRUE(confirm_incremental_keys(inputs, std::map<std::string, bool>{{kId, false}}, {}, "").empty());
  EXPECT_TRUE(inputs.nodes[0].compile_key.empty());
  EXPECT_EQ(inputs.nodes[0].fingerprint.components.at("sql"), "compiled");
  EXPECT_TRUE(inputs.nodes[0].incomplete.empty());
}

// Only a key cleared because the relation was absent or of another kind is set aside, and a node
// recompiled after its first build (its relation now a table) takes it back.
TEST(IncrementalKeys, AKeyClearedForAnAbsentRelationIsSetAsideForTheRecompile) {
  const std::vector<Unconfirmed> cases{
      {std::map<std::string, bool>{{kId, false}}, {}, "", "set aside"},
      {kExists, {{kId, "view"}}, "", "set aside"},
      {kExists, {}, "", "not set aside"},
      {std::nullopt, kTable, "", "not set aside"},
      {kExists, kTable, "true", "not set aside"},
  };
  for (const auto& c : cases) {
    auto inputs = one_incremental_model(false);
    std::map<std::string, std::string> set_aside;
    confirm_incremental_keys(inputs, c.exist, c.kinds, c.full_refresh, &set_aside);
    const bool expected = c.why == "set aside";
    EXPECT_EQ(set_aside.contains(kId), expected) << c.why;
    const std::map<std::string, std::map<std::string, std::string>> recompiled{{kId, {{"sql", "incremental"}}}};
    EXPECT_EQ(set_aside_keys_of_recompiled(inputs, recompiled, set_aside), expected ? 1u : 0u);
    EXPECT_EQ(inputs.nodes[0].compile_key, expected ? "k1" : "");
  }
  auto inputs = one_incremental_model(false);  // not recompiled: no key
  std::map<std::string, std::string> set_aside;
  confirm_incremental_keys(inputs, std::map<std::string, bool>{{kId, false}}, {}, "", &set_aside);
  EXPECT_EQ(set_aside_keys_of_recompiled(inputs, {}, set_aside), 0u);
  EXPECT_TRUE(inputs.nodes[0].compile_key.empty());
}

// A node whose key doesn't assume is_incremental() is left as it is.
TEST(IncrementalKeys, OtherNodesAreLeftAlone) {
  auto inputs = one_incremental_model(true);
  inputs.nodes[0].compile_key_assumes_incremental = false;
  EXPECT_TRUE(confirm_incremental_keys(inputs, std::map<std::string, bool>{{kId, false}}, {}, "").empty());
  EXPECT_EQ(inputs.nodes[0].compile_key, "k1");
  EXPECT_EQ(inputs.nodes[0].sql_from_run, "run-1");
}

}  // namespace
}  // namespace ods::cli
