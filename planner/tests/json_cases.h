#pragma once
// Test-only: the data-driven JSON cases of planner/tests/cases/<kind>/*.json (a new case is a
// new file). Header-only so each test file stands alone.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace ods::test_cases {

inline std::filesystem::path json_cases_dir(const std::string& kind) {
  return std::filesystem::path(ODS_SOURCE_DIR) / "planner/tests/cases" / kind;
}

// The sorted stems of the *.json files of cases/<kind>.
inline std::vector<std::string> json_case_names(const std::string& kind) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(json_cases_dir(kind))) {
    if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

inline nlohmann::json load_json_case(const std::string& kind, const std::string& name) {
  std::ifstream in(json_cases_dir(kind) / (name + ".json"));
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str());
}

}  // namespace ods::test_cases
