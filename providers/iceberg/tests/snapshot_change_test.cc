// Which Iceberg snapshots change data: one case file per operation and summary shape
// (snapshot_cases/*.case), so a new case is a file. A case file has `operation:`, an optional
// `summary:` (a JSON object, as the snapshots table's map comes back) and `expect: change` or
// `expect: no_change`; lines starting with # are comments. The summaries marked "recorded
// here" are rows of a real table's snapshots table (Spark 4.0.1, Iceberg 1.10.1).
#include "ods/iceberg/snapshot_change.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "harness/source_paths.h"

namespace ods::iceberg {
namespace {

namespace fs = std::filesystem;

struct SnapshotCase {
  std::string name;
  IcebergSnapshot snapshot;
  bool expect_change = true;
  friend void PrintTo(const SnapshotCase& c, std::ostream* os) { *os << c.name; }
};

SnapshotCase read_case(const fs::path& file) {
  SnapshotCase c;
  c.name = file.stem().string();
  std::ifstream in(file);
  std::string line;
  bool has_expect = false, has_operation = false;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto colon = line.find(": ");
    if (colon == std::string::npos) {
      ADD_FAILURE() << file << ": a line without 'key: value': " << line;
      continue;
    }
    std::string key = line.substr(0, colon), value = line.substr(colon + 2);
    if (key == "operation") {
      c.snapshot.operation = value;
      has_operation = true;
    } else if (key == "summary") {
      auto j = nlohmann::json::parse(value, nullptr, false);
      if (!j.is_object()) ADD_FAILURE() << file << ": the summary is not a JSON object: " << value;
      for (const auto& [k, v] : j.items()) c.snapshot.summary[k] = v.is_string() ? v.get<std::string>() : v.dump();
    } else if (key == "expect") {
      EXPECT_TRUE(value == "change" || value == "no_change") << file << ": expect is " << value;
      c.expect_change = value == "change";
      has_expect = true;
    } else {
      ADD_FAILURE() << file << ": unknown key " << key;
    }
  }
  EXPECT_TRUE(has_expect) << file << " has no expect line";
  EXPECT_TRUE(has_operation) << file << " has no operation line";
  return c;
}

std::vector<SnapshotCase> all_cases() {
  std::vector<SnapshotCase> cases;
  for (const auto& entry :
       fs::directory_iterator(ods::testing::source_dir() / "providers/iceberg/tests/snapshot_cases"))
    if (entry.path().extension() == ".case") cases.push_back(read_case(entry.path()));
  std::sort(cases.begin(), cases.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return cases;
}

class SnapshotRule : public ::testing::TestWithParam<SnapshotCase> {};

TEST_P(SnapshotRule, ClassifiesAsTheCaseSays) {
  const SnapshotCase& c = GetParam();
  auto verdict = classify_snapshot(c.snapshot);
  EXPECT_EQ(verdict.changes_data, c.expect_change) << c.name << ": " << verdict.why;
  EXPECT_FALSE(verdict.why.empty());
}

INSTANTIATE_TEST_SUITE_P(Cases, SnapshotRule, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<SnapshotCase>& param_info) {
                           return param_info.param.name;
                         });

TEST(SnapshotRule, EveryOperationOfTheSpecHasACaseEachWay) {
  std::set<std::string> changes, keeps;
  for (const auto& c : all_cases()) (c.expect_change ? changes : keeps).insert(c.snapshot.operation);
  for (const char* op : {"append", "overwrite", "delete", "replace"}) EXPECT_TRUE(changes.contains(op)) << op;
  for (const char* op : {"append", "overwrite", "delete", "replace"}) EXPECT_TRUE(keeps.contains(op)) << op;
}

}  // namespace
}  // namespace ods::iceberg
