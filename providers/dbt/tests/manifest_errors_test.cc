// Bad artifacts are refused with a message that says what and where, and nothing is read.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fixture_util.h"

namespace ods::dbt {
namespace {

using namespace ods::dbt::testing;
using ::testing::HasSubstr;

TEST(ManifestErrors, OtherSchemaVersionsAreRefused) {
  auto manifest = load_fixture("build_manifest.json");
  manifest["metadata"]["dbt_schema_version"] = "https://schemas.getdbt.com/dbt/manifest/v11.json";
  const Error e = read_error(manifest);
  EXPECT_EQ(e.code, "unsupported_schema");
  EXPECT_THAT(e.message, HasSubstr("manifest.json"));
  EXPECT_THAT(e.message, HasSubstr("\"https://schemas.getdbt.com/dbt/manifest/v11.json\""));
}

TEST(ManifestErrors, SchemaVersionWinsOverMalformedEntriesBeforeTheMetadata) {
  // An older schema may have other shapes: say "unsupported", not "malformed".
  auto manifest = load_fixture("build_manifest.json");
  manifest["metadata"]["dbt_schema_version"] = "https://schemas.getdbt.com/dbt/manifest/v7.json";
  manifest["nodes"]["model.shop.orders"]["checksum"] = "abc";
  OJson reordered = OJson::object();
  reordered["nodes"] = manifest["nodes"];
  for (auto& [key, value] : manifest.items()) {
    if (key != "nodes") reordered[key] = value;
  }
  EXPECT_EQ(read_error(reordered).code, "unsupported_schema");
}

TEST(ManifestErrors, MalformedJsonNamesFileAndByte) {
  const std::string text = read_text(fixture_path("build_manifest.json"));
  ArtifactPaths paths;
  paths.manifest = write_text(text.substr(0, text.size() / 2), "manifest.json");
  const auto project = read_dbt_project(paths, {});
  ASSERT_FALSE(project.has_value());
  EXPECT_EQ(project.error().code, "invalid_artifact");
  EXPECT_THAT(project.error().message, HasSubstr(paths.manifest.string() + ": not valid JSON at byte "));

  paths.manifest = write_text(
      "{\"metadata\": {\"dbt_schema_version\": \"https://schemas.getdbt.com/dbt/manifest/v12.json\"}} trailing",
      "manifest.json");
  EXPECT_THAT(read_dbt_project(paths, {}).error().message, HasSubstr("unexpected data after the JSON value"));
  paths.manifest = write_text("", "manifest.json");
  EXPECT_THAT(read_dbt_project(paths, {}).error().message, HasSubstr("empty input"));
  paths.manifest = write_text("[1, 2]", "manifest.json");
  EXPECT_THAT(read_dbt_project(paths, {}).error().message, HasSubstr("top level: expected an object"));
}

TEST(ManifestErrors, InvalidUtf8IsRefusedNotACrash) {
  // Found by fuzz_manifest: a string with a stray UTF-8 lead byte was accepted, and writing
  // the snapshot (nlohmann's dump) then threw and ended the process.
  std::string text = read_text(fixture_path("build_manifest.json"));
  const std::string field = "\"raw_code\": \"";
  const auto at = text.find(field);
  ASSERT_NE(at, std::string::npos);
  text.insert(at + field.size(), "\xC3t");
  ArtifactPaths paths;
  paths.manifest = write_text(text, "manifest.json");
  const auto project = read_dbt_project(paths, {});
  ASSERT_FALSE(project.has_value());
  EXPECT_EQ(project.error().code, "invalid_artifact");
  EXPECT_THAT(project.error().message, HasSubstr(paths.manifest.string() + ": not valid JSON at byte "));
  EXPECT_THAT(project.error().message, HasSubstr("invalid UTF-8"));
}

TEST(ManifestErrors, WrongFieldTypesNameTheFieldPath) {
  struct Case {
    std::function<void(OJson&)> edit;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](OJson& m) { m["nodes"]["model.shop.orders"]["checksum"] = "abc"; },
       "manifest.json: nodes.model.shop.orders.checksum: expected an object"},
      {[](OJson& m) { m["nodes"]["model.shop.orders"]["config"] = OJson::array(); },
       "manifest.json: nodes.model.shop.orders.config: expected an object"},
      {[](OJson& m) { m["nodes"]["model.shop.orders"]["depends_on"]["nodes"] = OJson::array({1}); },
       "manifest.json: nodes.model.shop.orders.depends_on.nodes: expected an array of strings"},
      {[](OJson& m) { m["nodes"]["model.shop.orders"]["config"]["pre-hook"] = OJson::array({OJson::object()}); },
       "manifest.json: nodes.model.shop.orders.config.pre-hook[0].sql: expected a string"},
      {[](OJson& m) { m["nodes"]["model.shop.orders"]["resource_type"] = 3; },
       "manifest.json: nodes.model.shop.orders.resource_type: expected a string"},
      {[](OJson& m) { m["nodes"]["model.shop.orders"] = "x"; },
       "manifest.json: nodes.model.shop.orders: expected an object"},
      {[](OJson& m) { m["nodes"] = OJson::array(); }, "manifest.json: nodes: expected an object"},
      {[](OJson& m) { m["macros"]["macro.shop.money"]["depends_on"] = 1; },
       "manifest.json: macros.macro.shop.money.depends_on: expected an object"},
      {[](OJson& m) { m["sources"]["source.shop.raw.orders"]["relation_name"] = OJson::object(); },
       "manifest.json: sources.source.shop.raw.orders.relation_name: expected a string"},
      {[](OJson& m) { m["unit_tests"]["unit_test.shop.orders.orders_join"]["config"] = 1; },
       "manifest.json: unit_tests.unit_test.shop.orders.orders_join.config: expected an object"},
      {[](OJson& m) { m["metadata"] = 1; }, "manifest.json: metadata: expected an object"},
      {[](OJson& m) { m.erase("nodes"); }, "manifest.json: nodes: missing"},
  };
  for (const auto& c : cases) {
    auto manifest = load_fixture("build_manifest.json");
    c.edit(manifest);
    const Error e = read_error(manifest);
    EXPECT_EQ(e.code, "invalid_artifact") << c.message;
    EXPECT_THAT(e.message, HasSubstr(c.message));
  }
}

TEST(ManifestErrors, NoProjectName) {
  auto manifest = load_fixture("build_manifest.json");
  manifest["metadata"].erase("project_name");
  const Error e = read_error(manifest);
  EXPECT_EQ(e.code, "no_project_name");
  EXPECT_THAT(e.message, HasSubstr("no project name"));
}

TEST(ManifestErrors, MissingFiles) {
  ArtifactPaths paths;
  paths.manifest = temp_file("nothing.json");
  auto project = read_dbt_project(paths, {});
  EXPECT_EQ(project.error().code, "missing_artifact");
  EXPECT_THAT(project.error().message, HasSubstr("nothing.json: cannot open"));

  paths.manifest = write_json(load_fixture("build_manifest.json"), "manifest.json");
  paths.sources = temp_file("sources.json");
  EXPECT_EQ(read_dbt_project(paths, {}).error().code, "missing_artifact");
}

TEST(ManifestErrors, SourcesJsonIsCheckedToo) {
  auto sources = load_fixture("sources.json");
  sources["metadata"]["dbt_schema_version"] = "https://schemas.getdbt.com/dbt/sources/v2.json";
  ArtifactPaths paths;
  paths.manifest = write_json(load_fixture("build_manifest.json"), "manifest.json");
  paths.sources = write_json(sources, "sources.json");
  auto project = read_dbt_project(paths, {});
  EXPECT_EQ(project.error().code, "unsupported_schema");
  EXPECT_THAT(project.error().message, HasSubstr("sources.json"));

  sources = load_fixture("sources.json");
  sources["results"][0]["max_loaded_at"] = 5;
  paths.sources = write_json(sources, "sources.json");
  project = read_dbt_project(paths, {});
  EXPECT_EQ(project.error().code, "invalid_artifact");
  EXPECT_THAT(project.error().message, HasSubstr("sources.json: results[0].max_loaded_at: expected a string"));
}

TEST(ManifestErrors, DeepNestingIsRefusedNotACrash) {
  auto manifest = load_fixture("build_manifest.json");
  std::string deep = std::string(5000, '[') + std::string(5000, ']');
  std::string text = manifest.dump();
  text.insert(text.size() - 1, ", \"docs\": " + deep);
  ArtifactPaths paths;
  paths.manifest = write_text(text, "manifest.json");
  const auto project = read_dbt_project(paths, {});
  ASSERT_FALSE(project.has_value());
  EXPECT_THAT(project.error().message, HasSubstr("nesting deeper than 512"));
  EXPECT_THAT(project.error().message, HasSubstr("(reading docs[0][0]"));
  EXPECT_LT(project.error().message.size(), 500u) << "the member path is shortened";
}

}  // namespace
}  // namespace ods::dbt

namespace ods::dbt {
namespace {

using namespace ods::dbt::testing;
using ::testing::HasSubstr;

TEST(ManifestMetadata, ReadsOnlyTheMetadataWhichDbtWritesFirst) {
  const std::string text = read_text(fixture_path("build_manifest.json"));
  const auto whole = read_manifest_metadata(fixture_path("build_manifest.json"));
  ASSERT_TRUE(whole.has_value()) << whole.error().message;
  EXPECT_EQ(whole->project_name, "shop");
  EXPECT_FALSE(whole->invocation_id.empty());
  // Cut after the metadata: the nodes are not read, so the rest of the text does not matter.
  const std::size_t nodes = text.find("\"nodes\"");
  ASSERT_NE(nodes, std::string::npos);
  ASSERT_LT(text.find("\"metadata\""), nodes) << "the fixture's metadata comes first, as dbt writes it";
  const auto cut = read_manifest_metadata(write_text(text.substr(0, nodes + 20), "manifest.json"));
  ASSERT_TRUE(cut.has_value()) << cut.error().message;
  EXPECT_EQ(cut->invocation_id, whole->invocation_id);
}

TEST(ManifestMetadata, MissingOrMalformedMetadataIsAnError) {
  auto none = read_manifest_metadata(write_text(R"({"nodes": {}})", "manifest.json"));
  ASSERT_FALSE(none.has_value());
  EXPECT_EQ(none.error().code, "invalid_artifact");
  EXPECT_THAT(none.error().message, HasSubstr("manifest.json: metadata: missing"));
  auto broken = read_manifest_metadata(write_text(R"({"metadata": {"project_name": )", "manifest.json"));
  ASSERT_FALSE(broken.has_value());
  EXPECT_THAT(broken.error().message, HasSubstr("not valid JSON at byte"));
  EXPECT_FALSE(read_manifest_metadata("/nonexistent/manifest.json").has_value());
}

}  // namespace
}  // namespace ods::dbt
