#pragma once
// Test-only: the data-driven JSON cases of planner/tests/cases/<kind>/*.json (a new case is a
// new file). Header-only so each test file stands alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "harness/source_paths.h"
#include "ods/planner/json_io.h"

namespace ods::test_cases {

inline std::filesystem::path json_cases_dir(const std::string& kind) {
  return ods::testing::source_dir() / "planner/tests/cases" / kind;
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

// What a case plans from: its "inputs" and its "previous" snapshot (absent or null: none).
struct CaseStart {
  planner::ProjectInputs inputs;
  std::optional<planner::StateSnapshot> previous;
  const planner::StateSnapshot* previous_or_null() const { return previous ? &*previous : nullptr; }
};

inline ods::Result<CaseStart> case_start(const nlohmann::json& c) {
  auto inputs = planner::inputs_from_json(c.at("inputs").dump());
  if (!inputs) return std::unexpected(inputs.error());
  CaseStart start{std::move(*inputs), std::nullopt};
  if (c.contains("previous") && !c["previous"].is_null()) {
    auto snap = planner::snapshot_from_json(c["previous"].dump());
    if (!snap) return std::unexpected(snap.error());
    start.previous = std::move(*snap);
  }
  return start;
}

// EXPECTs a plan or check entry's action and first reason's code as `want` says, and, with
// "mentions", that the reason's message holds it. The entry has at least one reason.
template <class Entry>
void expect_entry_as(const Entry& e, const nlohmann::json& want) {
  EXPECT_EQ(std::string(to_string(e.action)), want.at("action").get<std::string>()) << e.id;
  EXPECT_EQ(e.reasons.front().code, want.at("code").get<std::string>()) << e.id << ": " << e.reasons.front().message;
  if (want.contains("mentions")) {
    EXPECT_NE(e.reasons.front().message.find(want["mentions"].get<std::string>()), std::string::npos)
        << e.id << ": " << e.reasons.front().message;
  }
}

}  // namespace ods::test_cases
