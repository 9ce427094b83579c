// How edits to a real manifest move (or don't move) the dbt/2 fingerprint components.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fixture_util.h"
#include "ods/planner/fingerprint.h"

namespace ods::dbt {
namespace {

using namespace ods::dbt::testing;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr const char* kOrders = "model.shop.orders";

class Components : public ::testing::Test {
 protected:
  void SetUp() override {
    manifest_ = load_fixture("build_manifest.json");
    before_ = read_ok(manifest_);
  }
  OJson& node(const std::string& id) { return manifest_["nodes"][id]; }
  // The components of `id` that differ between the unedited manifest and manifest_ now.
  std::vector<std::string> changed(const std::string& id) {
    const auto after = read_ok(manifest_);
    const auto diff = planner::diff(node_of(before_, id).fingerprint, node_of(after, id).fingerprint);
    std::vector<std::string> out = diff.changed;
    out.insert(out.end(), diff.added.begin(), diff.added.end());
    out.insert(out.end(), diff.removed.begin(), diff.removed.end());
    return out;
  }
  OJson manifest_;
  DbtProject before_;
};

TEST_F(Components, CommentAndWhitespaceEditKeepsTheFingerprint) {
  // A real `dbt compile` after adding a comment and reformatting orders.sql.
  const auto edited = read_ok(load_fixture("edited_manifest.json"));
  const auto a = node_of(before_, kOrders);
  const auto b = node_of(edited, kOrders);
  EXPECT_EQ(component(a, "sql"), component(b, "sql"));
  EXPECT_EQ(a.fingerprint, b.fingerprint);
  EXPECT_NE(a.raw_digest, b.raw_digest);  // "only formatting changed" can be said
}

TEST_F(Components, ChangedCompiledSqlChangesSql) {
  node(kOrders)["compiled_code"] = node(kOrders)["compiled_code"].get<std::string>() + " where o.amount > 0";
  EXPECT_THAT(changed(kOrders), ElementsAre("sql"));
}

TEST_F(Components, MetadataConfigDoesNotCountButBuildConfigDoes) {
  auto& config = node(kOrders)["config"];
  config["tags"] = OJson::array({"x", "y"});
  config["meta"]["owner"] = "someone";
  config["docs"]["show"] = false;
  config["group"] = "finance";
  config["access"] = "public";
  EXPECT_THAT(changed(kOrders), IsEmpty());
  config["materialized"] = "view";
  EXPECT_THAT(changed(kOrders), ElementsAre("config"));
}

TEST_F(Components, ConfigIsCanonicalWhateverTheMemberOrder) {
  auto& config = node(kOrders)["config"];
  OJson reversed = OJson::object();
  for (auto it = config.rbegin(); it != config.rend(); ++it) reversed[it.key()] = it.value();
  config = reversed;
  EXPECT_THAT(changed(kOrders), IsEmpty());
}

TEST_F(Components, HookSqlIsPartOfConfig) {
  node(kOrders)["config"]["post-hook"][0]["sql"] = "select 1";
  EXPECT_THAT(changed(kOrders), ElementsAre("config"));
}

TEST_F(Components, RelationAndEngine) {
  node(kOrders)["relation_name"] = "\"shop\".\"prod\".\"orders\"";
  EXPECT_THAT(changed(kOrders), ElementsAre("relation"));
  manifest_ = load_fixture("build_manifest.json");
  manifest_["metadata"]["dbt_version"] = "1.11.0";
  EXPECT_THAT(changed(kOrders), ElementsAre("engine"));
}

TEST_F(Components, ContractColumnsCountOnlyWhenEnforced) {
  auto& columns = node("model.shop.contracted")["columns"];
  columns["id"]["description"] = "the key";
  EXPECT_THAT(changed("model.shop.contracted"), IsEmpty());
  columns["id"]["data_type"] = "bigint";
  EXPECT_THAT(changed("model.shop.contracted"), ElementsAre("contract"));
  // Not enforced: column types are documentation only.
  manifest_ = load_fixture("build_manifest.json");
  node(kOrders)["columns"]["id"]["data_type"] = "bigint";
  EXPECT_THAT(changed(kOrders), IsEmpty());
}

TEST_F(Components, ContractColumnOrderCounts) {
  auto& columns = node("model.shop.contracted")["columns"];
  OJson reordered = OJson::object();
  reordered["name"] = columns["name"];
  reordered["id"] = columns["id"];
  columns = reordered;
  EXPECT_THAT(changed("model.shop.contracted"), ElementsAre("contract"));
}

TEST_F(Components, SeedFileChecksum) {
  node("seed.shop.customers")["checksum"]["checksum"] = std::string(64, 'a');
  EXPECT_THAT(changed("seed.shop.customers"), ElementsAre("file"));
}

TEST_F(Components, ImpureJinjaAddsTheFileComponent) {
  node(kOrders)["raw_code"] = "{% set rows = run_query('select 1') %}\n" + node(kOrders)["raw_code"].get<std::string>();
  EXPECT_THAT(changed(kOrders), ElementsAre("file"));
}

TEST_F(Components, MissingRawCodeAddsTheFileComponent) {
  node(kOrders).erase("raw_code");
  EXPECT_THAT(changed(kOrders), ElementsAre("file"));
  EXPECT_TRUE(node_of(read_ok(manifest_), kOrders).raw_digest.empty());
}

TEST_F(Components, MacrosAreCoveredTransitively) {
  // stg_orders calls shop.money, which calls util.cents_to_dollars.
  manifest_["macros"]["macro.util.cents_to_dollars"]["macro_sql"] =
      "{% macro cents_to_dollars(col) %}({{ col }} / 100){% endmacro %}";
  EXPECT_THAT(changed("model.shop.stg_orders"), ElementsAre("macros"));
  EXPECT_THAT(changed(kOrders), IsEmpty());
}

TEST_F(Components, GenerateNameOverridesAndMaterializationsAreCovered) {
  manifest_["macros"]["macro.shop.generate_alias_name"]["macro_sql"] =
      "{% macro generate_alias_name() %}x{% endmacro %}";
  EXPECT_THAT(changed(kOrders), ElementsAre("macros"));
  EXPECT_THAT(changed("seed.shop.customers"), ElementsAre("macros"));

  manifest_ = load_fixture("build_manifest.json");
  OJson mat = manifest_["macros"]["macro.shop.money"];
  mat["name"] = "materialization_table_default";
  mat["unique_id"] = "macro.shop.materialization_table_default";
  mat["macro_sql"] = "{% materialization table, default %}{% endmaterialization %}";
  manifest_["macros"]["macro.shop.materialization_table_default"] = mat;
  EXPECT_THAT(changed(kOrders), ElementsAre("macros"));      // a table
  EXPECT_THAT(changed("model.shop.stg_orders"), IsEmpty());  // a view
}

TEST_F(Components, DbtAndAdapterMacrosAreCoveredByEngine) {
  // impure depends on macro.dbt.run_query: editing or losing it changes nothing.
  manifest_["macros"]["macro.dbt.run_query"]["macro_sql"] = "changed";
  EXPECT_THAT(changed("model.shop.impure"), IsEmpty());
  manifest_["macros"].erase("macro.dbt.run_query");
  EXPECT_THAT(node_of(read_ok(manifest_), "model.shop.impure").incomplete, IsEmpty());
}

TEST_F(Components, MissingProjectMacroMakesTheNodeIncomplete) {
  node(kOrders)["depends_on"]["macros"].push_back("macro.shop.nope");
  EXPECT_THAT(node_of(read_ok(manifest_), kOrders).incomplete,
              ElementsAre("macro macro.shop.nope missing from the artifacts"));
}

TEST_F(Components, ManifestFromDbtParseHasNoCompiledCode) {
  const auto parsed = read_ok(load_fixture("parse_manifest.json"));
  EXPECT_THAT(node_of(parsed, kOrders).incomplete, ElementsAre("no compiled SQL: run dbt compile"));
  EXPECT_THAT(node_of(parsed, "snapshot.shop.customers_snap").incomplete,
              ElementsAre("no compiled SQL: run dbt compile"));
  EXPECT_THAT(node_of(parsed, "model.shop.py_model").incomplete, ElementsAre("no compiled code: run dbt compile"));
  EXPECT_THAT(node_of(parsed, "seed.shop.customers").incomplete, IsEmpty());
}

TEST_F(Components, PathOnlyChecksumIsNoFingerprint) {
  node("seed.shop.customers")["checksum"] = OJson{{"name", "path"}, {"checksum", "seeds/customers.csv"}};
  const auto project = read_ok(manifest_);
  EXPECT_THAT(node_of(project, "seed.shop.customers").incomplete,
              ElementsAre("no content checksum (dbt recorded only the file's path)"));
  // A pure SQL model doesn't need its file: a path checksum there changes nothing.
  manifest_ = load_fixture("build_manifest.json");
  node(kOrders)["checksum"] = OJson{{"name", "path"}, {"checksum", "models/marts/orders.sql"}};
  EXPECT_THAT(node_of(read_ok(manifest_), kOrders).incomplete, IsEmpty());
}

TEST_F(Components, NoRecordedConfig) {
  node(kOrders).erase("config");
  EXPECT_THAT(node_of(read_ok(manifest_), kOrders).incomplete, Contains("no recorded config"));
}

TEST_F(Components, ImpureEphemeralModelAddsItsFileToItsReaders) {
  auto& eph = node("model.shop.int_payments");
  eph["raw_code"] = "{% do run_query('delete from x') %}\n" + eph["raw_code"].get<std::string>();
  EXPECT_THAT(changed(kOrders), ElementsAre("file"));
  eph["checksum"] = OJson{{"name", "path"}, {"checksum", "models/staging/int_payments.sql"}};
  EXPECT_THAT(node_of(read_ok(manifest_), kOrders).incomplete,
              ElementsAre("ephemeral model model.shop.int_payments has no content checksum"));
}

TEST_F(Components, EphemeralMacrosCountForTheirReaders) {
  node("model.shop.stg_payments")["depends_on"]["macros"].push_back("macro.util.cents_to_dollars");
  EXPECT_THAT(changed(kOrders), ElementsAre("macros"));
}

TEST_F(Components, HooksRuleOnlyAppliesToNodesWithHooks) {
  // A hook reading env_var directly.
  node("model.shop.impure")["config"]["pre-hook"] = OJson::array(
      {OJson{{"sql", "select 1"}, {"transaction", true}, {"index", nullptr}},
       OJson{{"sql", "insert into t values ('{{ env_var(\"X\") }}')"}, {"transaction", true}, {"index", nullptr}}});
  EXPECT_THAT(node_of(read_ok(manifest_), "model.shop.impure").always_build, ElementsAre("pre-hook 2 reads env_var"));
  // Using the env_var macro without any hook is fine (its output is in the compiled SQL).
  manifest_ = load_fixture("build_manifest.json");
  node("model.shop.stg_orders")["depends_on"]["macros"].push_back("macro.util.env_suffix");
  EXPECT_THAT(node_of(read_ok(manifest_), "model.shop.stg_orders").always_build, IsEmpty());
}

TEST_F(Components, ChecksDigestFollowsTestDefinitions) {
  const std::string before = node_of(before_, kOrders).checks_digest;
  auto digest_now = [&] { return node_of(read_ok(manifest_), kOrders).checks_digest; };
  const std::string test = "test.shop.not_null_orders_id.84ef11d8fe";
  manifest_["nodes"][test]["config"]["tags"] = OJson::array({"nightly"});
  EXPECT_EQ(digest_now(), before);
  manifest_["nodes"][test]["config"]["severity"] = "warn";
  EXPECT_NE(digest_now(), before);

  manifest_ = load_fixture("build_manifest.json");
  manifest_["macros"]["macro.shop.test_positive"]["macro_sql"] =
      "{% test positive(model, column_name) %}select 1{% endtest %}";
  EXPECT_NE(digest_now(), before);

  manifest_ = load_fixture("build_manifest.json");
  manifest_["unit_tests"]["unit_test.shop.orders.orders_join"]["expect"]["rows"][0]["paid"] = 3;
  EXPECT_NE(digest_now(), before);

  manifest_ = load_fixture("build_manifest.json");
  manifest_["nodes"].erase("test.shop.orders_not_empty");
  EXPECT_NE(digest_now(), before);
  // The compiled SQL of a test (which depends on the command that wrote the manifest) doesn't count.
  manifest_ = load_fixture("build_manifest.json");
  manifest_["nodes"][test]["compiled_code"] = "select 2";
  EXPECT_EQ(digest_now(), before);
}

TEST_F(Components, PolicyErrors) {
  auto& ods = node(kOrders)["config"]["meta"]["ods"];
  ods["lag_tolerance"] = "2 weeks";
  auto policy = node_of(read_ok(manifest_), kOrders).policy;
  EXPECT_FALSE(policy.allows_reuse());
  EXPECT_THAT(policy.error, ::testing::HasSubstr("meta.ods.lag_tolerance"));
  ods["lag_tolerance"] = 90;
  ods["require_fresh_data_from"] = "any";
  policy = node_of(read_ok(manifest_), kOrders).policy;
  EXPECT_TRUE(policy.allows_reuse());
  EXPECT_EQ(policy.lag_tolerance_seconds, 90);
  EXPECT_FALSE(policy.require_fresh_data_from_all);
  ods["require_fresh_data_from"] = "most";
  EXPECT_FALSE(node_of(read_ok(manifest_), kOrders).policy.allows_reuse());
  ods["require_fresh_data_from"] = "all";
  ods["lag_tolerence"] = "1h";
  const auto project = read_ok(manifest_);
  EXPECT_TRUE(node_of(project, kOrders).policy.allows_reuse());
  EXPECT_THAT(project.inputs.warnings,
              Contains("model.shop.orders: meta.ods.lag_tolerence is not an ODS setting; ignored"));
}

}  // namespace
}  // namespace ods::dbt
