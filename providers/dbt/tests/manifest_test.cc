// read_dbt_project on the real `shop` manifest (see fixtures/README.md).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "fixture_util.h"
#include "ods/base/sha256.h"
#include "ods/planner/fingerprint.h"

namespace ods::dbt {
namespace {

using namespace ods::dbt::testing;
using ::testing::ElementsAre;

class ShopManifest : public ::testing::Test {
 protected:
  void SetUp() override {
    manifest_ = load_fixture("build_manifest.json");
    sources_ = load_fixture("sources.json");
    project_ = read_ok(manifest_, &sources_);
  }
  OJson manifest_;
  OJson sources_;
  DbtProject project_;
};

TEST_F(ShopManifest, PlansModelsSeedsAndSnapshotsButNotEphemeralModelsOrTests) {
  std::vector<std::string> ids;
  for (const auto& node : project_.inputs.nodes) ids.push_back(node.id);
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, (std::vector<std::string>{"model.shop.contracted", "model.shop.hooked", "model.shop.impure",
                                           "model.shop.orders", "model.shop.py_model", "model.shop.stg_orders",
                                           "seed.shop.customers", "snapshot.shop.customers_snap"}));
}

// The relations a probe without dbt reads (issue 41 item 3): the planned nodes' in manifest order
// (as inputs.nodes), each at its database, schema and alias; every source at its identifier.
TEST_F(ShopManifest, RelationPlacesOfThePlannedNodesAndTheSources) {
  std::vector<std::string> node_ids, place_ids;
  for (const auto& node : project_.inputs.nodes) node_ids.push_back(node.id);
  for (const auto& place : project_.node_places) place_ids.push_back(place.id);
  EXPECT_EQ(place_ids, node_ids);
  for (const auto& place : project_.node_places) {
    const auto& entry = manifest_["nodes"][place.id];
    EXPECT_EQ(place.database, entry["database"].get<std::string>()) << place.id;
    EXPECT_EQ(place.schema, entry["schema"].get<std::string>()) << place.id;
    EXPECT_EQ(place.identifier, entry["alias"].get<std::string>()) << place.id;
  }
  ASSERT_EQ(project_.source_places.size(), project_.inputs.sources.size());
  for (const auto& place : project_.source_places) {
    const auto& entry = manifest_["sources"][place.id];
    EXPECT_EQ(place.database + "." + place.schema + "." + place.identifier,
              entry["database"].get<std::string>() + "." + entry["schema"].get<std::string>() + "." +
                  entry["identifier"].get<std::string>());
  }
  const auto orders = std::find_if(project_.source_places.begin(), project_.source_places.end(),
                                   [](const RelationPlace& p) { return p.id == "source.shop.raw.orders"; });
  ASSERT_NE(orders, project_.source_places.end());
  EXPECT_EQ(orders->identifier, "raw_orders");
}

TEST_F(ShopManifest, ProjectMetadata) {
  const auto& in = project_.inputs;
  EXPECT_EQ(in.scheme, "dbt/2");
  EXPECT_EQ(in.project, "shop");
  EXPECT_EQ(in.invocation_id, manifest_["metadata"]["invocation_id"].get<std::string>());
  EXPECT_EQ(in.generated_at, manifest_["metadata"]["generated_at"].get<std::string>());
  EXPECT_EQ(in.target_identity, "duckdb/shop/main");
  EXPECT_EQ(project_.meta.dbt_version, "1.10.15");
  EXPECT_EQ(project_.meta.adapter_type, "duckdb");
}

TEST_F(ShopManifest, ReadersOfEphemeralModelsDependOnTheirParentsTransitively) {
  // orders reads int_payments (ephemeral) which reads stg_payments (ephemeral) which reads raw.payments.
  EXPECT_THAT(node_of(project_, "model.shop.orders").parents,
              ElementsAre("model.shop.stg_orders", "seed.shop.customers", "source.shop.raw.payments"));
  EXPECT_THAT(node_of(project_, "model.shop.stg_orders").parents, ElementsAre("source.shop.raw.orders"));
  EXPECT_TRUE(node_of(project_, "seed.shop.customers").parents.empty());
}

TEST_F(ShopManifest, ACycleOfEphemeralModelsEndsInsteadOfLooping) {
  // dbt refuses cycles; should a manifest have one, reading still ends.
  manifest_["nodes"]["model.shop.stg_payments"]["depends_on"]["nodes"].push_back("model.shop.int_payments");
  const auto project = read_ok(manifest_);
  EXPECT_THAT(node_of(project, "model.shop.orders").parents,
              ElementsAre("model.shop.stg_orders", "seed.shop.customers", "source.shop.raw.payments"));
}

TEST_F(ShopManifest, ComponentsOfAPureSqlModel) {
  const auto orders = node_of(project_, "model.shop.orders");
  std::vector<std::string> names;
  for (const auto& [name, digest] : orders.fingerprint.components) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"config", "contract", "engine", "macros", "relation", "scheme", "sql"}));
  EXPECT_TRUE(orders.sql_normalised);
  EXPECT_TRUE(orders.incomplete.empty());
  EXPECT_EQ(component(orders, "scheme"), ods::sha256_hex("dbt/2"));
  EXPECT_EQ(component(orders, "relation"), ods::sha256_hex("\"shop\".\"main\".\"orders\""));
  EXPECT_EQ(component(orders, "engine"), ods::sha256_hex("1.10.15/duckdb"));
  EXPECT_EQ(component(orders, "contract"), ods::sha256_hex("not enforced"));
  EXPECT_EQ(orders.raw_digest, ods::sha256_hex(manifest_["nodes"]["model.shop.orders"]["raw_code"].get<std::string>()));
  EXPECT_FALSE(orders.self_contained);
}

TEST_F(ShopManifest, ImpureJinjaKeepsTheFileChecksum) {
  // impure.sql runs run_query; stg_orders calls a project macro: neither is pure.
  for (const char* id : {"model.shop.impure", "model.shop.stg_orders"}) {
    const auto node = node_of(project_, id);
    EXPECT_FALSE(component(node, "file").empty()) << id;
    EXPECT_FALSE(component(node, "sql").empty()) << id;
  }
  EXPECT_TRUE(component(node_of(project_, "model.shop.contracted"), "file").empty());
}

TEST_F(ShopManifest, SeedsAreSelfContainedAndFingerprintedByTheirFile) {
  const auto seed = node_of(project_, "seed.shop.customers");
  EXPECT_TRUE(seed.self_contained);
  EXPECT_EQ(seed.resource_type, "seed");
  EXPECT_FALSE(component(seed, "file").empty());
  EXPECT_TRUE(component(seed, "sql").empty());
  EXPECT_TRUE(seed.incomplete.empty());
}

TEST_F(ShopManifest, PythonModelsUseFileAndCompiledCode) {
  const auto py = node_of(project_, "model.shop.py_model");
  EXPECT_FALSE(component(py, "file").empty());
  EXPECT_EQ(component(py, "compiled_code"),
            ods::sha256_hex(manifest_["nodes"]["model.shop.py_model"]["compiled_code"].get<std::string>()));
  EXPECT_TRUE(component(py, "sql").empty());
}

TEST_F(ShopManifest, SnapshotsUseNormalisedSql) {
  const auto snap = node_of(project_, "snapshot.shop.customers_snap");
  EXPECT_EQ(snap.resource_type, "snapshot");
  EXPECT_FALSE(component(snap, "sql").empty());
  EXPECT_TRUE(snap.sql_normalised);
  EXPECT_THAT(snap.parents, ElementsAre("seed.shop.customers"));
}

TEST_F(ShopManifest, EnforcedContractHasItsOwnComponent) {
  EXPECT_NE(component(node_of(project_, "model.shop.contracted"), "contract"), ods::sha256_hex("not enforced"));
}

TEST_F(ShopManifest, HooksThatReadTheRunContextAlwaysBuild) {
  EXPECT_THAT(node_of(project_, "model.shop.orders").always_build, ElementsAre("pre-hook 1 reads target"));
  // hooked's post-hook calls util.env_suffix, which reads env_var.
  EXPECT_THAT(node_of(project_, "model.shop.hooked").always_build, ElementsAre("macro util.env_suffix reads env_var"));
  EXPECT_TRUE(node_of(project_, "model.shop.stg_orders").always_build.empty());
}

TEST_F(ShopManifest, FreshnessPolicyFromMetaOds) {
  const auto orders = node_of(project_, "model.shop.orders");
  EXPECT_EQ(orders.policy.lag_tolerance_seconds, 7200);
  EXPECT_TRUE(orders.policy.require_fresh_data_from_all);
  EXPECT_TRUE(orders.policy.allows_reuse());
  EXPECT_FALSE(node_of(project_, "model.shop.impure").policy.lag_tolerance_seconds.has_value());
}

TEST_F(ShopManifest, SourcesWithAndWithoutFreshnessEvidence) {
  ASSERT_EQ(project_.inputs.sources.size(), 2u);
  const auto* orders = find_source(project_, "source.shop.raw.orders");
  ASSERT_NE(orders, nullptr);
  EXPECT_EQ(orders->name, "raw.orders");
  EXPECT_EQ(orders->relation, "\"shop\".\"main\".\"raw_orders\"");
  ASSERT_TRUE(orders->version.has_value());
  EXPECT_EQ(orders->version->value, "2026-01-02T11:00:00.000000Z");
  EXPECT_EQ(orders->version->exactness, planner::Exactness::semantic);
  EXPECT_EQ(orders->version->origin, "sources_json");
  EXPECT_EQ(orders->version->observed_at, "2026-11-29T20:49:47.968357Z");
  ASSERT_EQ(orders->evidence.size(), 1u);
  EXPECT_EQ(orders->evidence[0].origin, "sources.json");

  const auto* payments = find_source(project_, "source.shop.raw.payments");
  ASSERT_NE(payments, nullptr);
  EXPECT_FALSE(payments->version.has_value());
  ASSERT_EQ(payments->evidence.size(), 1u);
  EXPECT_EQ(payments->evidence[0].exactness, planner::Exactness::none);
  EXPECT_EQ(payments->evidence[0].value, "not in sources.json: dbt source freshness did not measure it");
}

TEST_F(ShopManifest, WithoutSourcesJsonNoSourceHasAVersion) {
  const auto project = read_ok(manifest_);
  for (const auto& source : project.inputs.sources) {
    EXPECT_FALSE(source.version.has_value()) << source.id;
    ASSERT_EQ(source.evidence.size(), 1u);
    EXPECT_EQ(source.evidence[0].value, "no sources.json: run dbt source freshness");
  }
}

TEST_F(ShopManifest, SourceWithoutLoadedAtFieldSaysSo) {
  manifest_["sources"]["source.shop.raw.payments"]["loaded_at_field"] = nullptr;
  manifest_["sources"]["source.shop.raw.payments"]["config"]["loaded_at_field"] = nullptr;
  const auto project = read_ok(manifest_, &sources_);
  EXPECT_EQ(find_source(project, "source.shop.raw.payments")->evidence[0].value,
            "no loaded_at_field: no freshness evidence");
}

TEST_F(ShopManifest, SourcesJsonEntriesForUnknownSourcesAreIgnoredAndFailuresExplained) {
  OJson entry = sources_["results"][0];
  entry["unique_id"] = "source.other.x.y";
  sources_["results"].push_back(entry);
  OJson failed = OJson::object();
  failed["unique_id"] = "source.shop.raw.payments";
  failed["status"] = "runtime error";
  failed["error"] = "column loaded_at not found";
  sources_["results"].push_back(failed);
  const auto project = read_ok(manifest_, &sources_);
  EXPECT_EQ(project.inputs.sources.size(), 2u);
  EXPECT_EQ(find_source(project, "source.shop.raw.payments")->evidence[0].value,
            "dbt source freshness failed: column loaded_at not found");
}

TEST_F(ShopManifest, TestsAreMappedToEveryNodeAndSourceTheyRead) {
  EXPECT_THAT(project_.tests_of["model.shop.orders"],
              ElementsAre("test.shop.not_null_orders_id.84ef11d8fe", "test.shop.orders_not_empty",
                          "test.shop.positive_orders_id.8e2c26946d",
                          "test.shop.relationships_orders_customer_id__id__ref_customers_.4282b0c525",
                          "unit_test.shop.orders.orders_join"));
  EXPECT_THAT(project_.tests_of["seed.shop.customers"],
              ElementsAre("test.shop.relationships_orders_customer_id__id__ref_customers_.4282b0c525"));
  EXPECT_THAT(project_.tests_of["source.shop.raw.orders"],
              ElementsAre("test.shop.source_not_null_raw_orders_id.f232a64478"));
  EXPECT_FALSE(project_.tests_of.contains("model.shop.impure"));
}

TEST_F(ShopManifest, ChecksDigestOnlyForNodesAndSourcesWithChecks) {
  EXPECT_FALSE(node_of(project_, "model.shop.orders").checks_digest.empty());
  EXPECT_FALSE(node_of(project_, "model.shop.contracted").checks_digest.empty());
  EXPECT_TRUE(node_of(project_, "model.shop.impure").checks_digest.empty());
  EXPECT_FALSE(find_source(project_, "source.shop.raw.orders")->checks_digest.empty());
  EXPECT_TRUE(find_source(project_, "source.shop.raw.payments")->checks_digest.empty());
}

// dbt build runs a unit test only with its model's build: orders has one, contracted only data tests.
TEST_F(ShopManifest, NodesWithUnitTestsNeedABuildForTheirChecks) {
  EXPECT_TRUE(node_of(project_, "model.shop.orders").checks_need_build);
  EXPECT_FALSE(node_of(project_, "model.shop.contracted").checks_need_build);
  EXPECT_FALSE(node_of(project_, "seed.shop.customers").checks_need_build);
}

TEST_F(ShopManifest, ReadFromProjectDirectoryUsesTarget) {
  const auto dir = temp_file("project");
  std::filesystem::create_directories(dir / "target");
  std::filesystem::copy_file(fixture_path("build_manifest.json"), dir / "target" / "manifest.json");
  const auto paths = ArtifactPaths::in_project(dir);
  EXPECT_FALSE(paths.sources.has_value());
  ReadOptions options;
  options.target = "prod";
  auto inputs = read_project_inputs(dir, options);
  ASSERT_TRUE(inputs.has_value()) << inputs.error().message;
  EXPECT_EQ(inputs->target, "prod");
  EXPECT_EQ(inputs->nodes.size(), 8u);
}

}  // namespace
}  // namespace ods::dbt
