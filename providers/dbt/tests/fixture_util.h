#pragma once
// Helpers for the dbt provider tests: load a real fixture, change it in memory, write it
// to a temporary directory and read it back through the public API.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "harness/source_paths.h"
#include "ods/dbt/artifacts.h"

namespace ods::dbt::testing {

using OJson = nlohmann::ordered_json;  // keeps dbt's member order

inline std::filesystem::path fixture_path(const std::string& name) {
  return ods::testing::source_dir() / "providers/dbt/tests/fixtures" / name;
}

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

inline OJson load_fixture(const std::string& name) { return OJson::parse(read_text(fixture_path(name))); }

// A fresh file path in the test's temporary directory.
inline std::filesystem::path temp_file(const std::string& name) {
  static std::atomic<int> counter{0};
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const auto dir = std::filesystem::path(::testing::TempDir()) / "ods_dbt_tests" /
                   (std::string(info->test_suite_name()) + "." + info->name() + "." + std::to_string(counter++));
  std::filesystem::remove_all(dir);  // left over from an earlier run
  std::filesystem::create_directories(dir);
  return dir / name;
}

inline std::filesystem::path write_text(const std::string& text, const std::string& name) {
  const auto path = temp_file(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

inline std::filesystem::path write_json(const OJson& json, const std::string& name) {
  return write_text(json.dump(), name);
}

// Reads `manifest` (and `sources` when given); fails the test on error.
inline DbtProject read_ok(const OJson& manifest, const OJson* sources = nullptr) {
  ArtifactPaths paths;
  paths.manifest = write_json(manifest, "manifest.json");
  if (sources != nullptr) paths.sources = write_json(*sources, "sources.json");
  auto project = read_dbt_project(paths, {});
  EXPECT_TRUE(project.has_value()) << (project ? "" : project.error().code + ": " + project.error().message);
  return project ? std::move(*project) : DbtProject{};
}

inline Error read_error(const OJson& manifest) {
  ArtifactPaths paths;
  paths.manifest = write_json(manifest, "manifest.json");
  auto project = read_dbt_project(paths, {});
  EXPECT_FALSE(project.has_value());
  return project ? Error{} : project.error();
}

inline const planner::NodeInput* find_node(const DbtProject& project, const std::string& id) {
  for (const auto& node : project.inputs.nodes) {
    if (node.id == id) return &node;
  }
  return nullptr;
}

inline const planner::SourceInput* find_source(const DbtProject& project, const std::string& id) {
  for (const auto& source : project.inputs.sources) {
    if (source.id == id) return &source;
  }
  return nullptr;
}

// The node, or a test failure and an empty node.
inline planner::NodeInput node_of(const DbtProject& project, const std::string& id) {
  const auto* node = find_node(project, id);
  EXPECT_NE(node, nullptr) << id << " is not a planned node";
  return node != nullptr ? *node : planner::NodeInput{};
}

inline std::string component(const planner::NodeInput& node, const std::string& name) {
  const auto it = node.fingerprint.components.find(name);
  return it == node.fingerprint.components.end() ? std::string() : it->second;
}

}  // namespace ods::dbt::testing
