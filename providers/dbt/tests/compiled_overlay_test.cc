// ArtifactPaths::compiled_nodes: the nodes the ods dbt driver hands over after a compile that
// wrote no manifest stand in for the parse's manifest entries, so the project read equals the
// one the compile's own manifest gives (issue 41 item 2).
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "fixture_util.h"

namespace ods::dbt::testing {
namespace {

// The driver's document: {"ods_compiled_nodes": 1, "invocation_id", "nodes": {id: node}}.
OJson handed_over(const OJson& nodes, int version = 1) {
  OJson doc;
  doc["ods_compiled_nodes"] = version;
  doc["invocation_id"] = "compile-invocation";
  doc["nodes"] = nodes;
  return doc;
}

// The nodes of dbt build's manifest that it compiled, as the driver would write them.
OJson compiled_of_build() {
  OJson nodes = OJson::object();
  const OJson manifest = load_fixture("build_manifest.json");  // outlives the loop over its nodes
  for (const auto& [id, node] : manifest.at("nodes").items())
    if (node.value("compiled", false)) nodes[id] = node;
  return nodes;
}

std::map<std::string, std::string> fingerprints(const planner::ProjectInputs& inputs) {
  std::map<std::string, std::string> out;
  for (const auto& n : inputs.nodes) {
    std::string line = n.fingerprint.digest();
    for (const auto& why : n.incomplete) line += " | " + why;
    out[n.id] = line;
  }
  return out;
}

Result<DbtProject> read_with(const OJson& overlay) {
  ArtifactPaths paths;
  paths.manifest = write_json(load_fixture("parse_manifest.json"), "manifest.json");
  paths.compiled_nodes = write_json(overlay, "compiled_nodes.json");
  return read_dbt_project(paths, {});
}

TEST(CompiledOverlay, ParseManifestWithTheCompiledNodesReadsAsTheCompiledManifest) {
  const DbtProject compiled = read_ok(load_fixture("build_manifest.json"));
  const DbtProject parsed = read_ok(load_fixture("parse_manifest.json"));
  ASSERT_NE(fingerprints(parsed.inputs), fingerprints(compiled.inputs)) << "the parse holds no compiled SQL";

  auto overlaid = read_with(handed_over(compiled_of_build()));
  ASSERT_TRUE(overlaid.has_value()) << overlaid.error().message;
  EXPECT_EQ(fingerprints(overlaid->inputs), fingerprints(compiled.inputs));
  EXPECT_EQ(overlaid->meta.project_name, parsed.meta.project_name);
}

TEST(CompiledOverlay, OnlyTheHandedOverNodesChange) {
  const OJson all = compiled_of_build();
  const std::string id = "model.shop.orders";
  ASSERT_TRUE(all.contains(id));
  OJson one = OJson::object();
  one[id] = all.at(id);
  auto overlaid = read_with(handed_over(one));
  ASSERT_TRUE(overlaid.has_value()) << overlaid.error().message;
  const auto got = fingerprints(overlaid->inputs);
  const auto parse = fingerprints(read_ok(load_fixture("parse_manifest.json")).inputs);
  const auto build = fingerprints(read_ok(load_fixture("build_manifest.json")).inputs);
  for (const auto& [node, line] : got) EXPECT_EQ(line, node == id ? build.at(node) : parse.at(node)) << node;
}

TEST(CompiledOverlay, ANodeTheParseLacksOrAnotherFormatIsRefused) {
  OJson stray = compiled_of_build();
  stray["model.shop.not_parsed"] = stray.begin().value();
  auto unknown = read_with(handed_over(stray));
  ASSERT_FALSE(unknown.has_value());
  EXPECT_EQ(unknown.error().code, "invalid_artifact");
  EXPECT_NE(unknown.error().message.find("not in"), std::string::npos) << unknown.error().message;

  auto other = read_with(handed_over(compiled_of_build(), 2));
  ASSERT_FALSE(other.has_value());
  EXPECT_EQ(other.error().code, "invalid_artifact");
  EXPECT_NE(other.error().message.find("ods_compiled_nodes"), std::string::npos) << other.error().message;

  OJson no_nodes;
  no_nodes["ods_compiled_nodes"] = 1;
  auto missing = read_with(no_nodes);
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code, "invalid_artifact");
}

}  // namespace
}  // namespace ods::dbt::testing
