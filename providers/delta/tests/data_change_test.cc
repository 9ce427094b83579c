// Which Delta commits change data: one case file per operation and metric shape
// (commit_cases/*.case), so a new case is a file. A case file has `operation:`, optional
// `metrics:` and `parameters:` (JSON objects, as DESCRIBE HISTORY's maps come back), and
// `expect: change` or `expect: no_change`; lines starting with # are comments.
#include "ods/delta/data_change.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "harness/source_paths.h"

namespace ods::delta {
namespace {

namespace fs = std::filesystem;

struct CommitCase {
  std::string name;
  DeltaCommit commit;
  bool expect_change = true;
  friend void PrintTo(const CommitCase& c, std::ostream* os) { *os << c.name; }
};

std::map<std::string, std::string> text_map(const std::string& json_text, const std::string& where) {
  std::map<std::string, std::string> out;
  auto j = nlohmann::json::parse(json_text, nullptr, false);
  if (!j.is_object()) {
    ADD_FAILURE() << where << ": not a JSON object: " << json_text;
    return out;
  }
  for (const auto& [k, v] : j.items()) out[k] = v.is_string() ? v.get<std::string>() : v.dump();
  return out;
}

CommitCase read_case(const fs::path& file) {
  CommitCase c;
  c.name = file.stem().string();
  std::ifstream in(file);
  std::string line;
  bool has_expect = false;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto colon = line.find(": ");
    if (colon == std::string::npos) {
      ADD_FAILURE() << file << ": a line without 'key: value': " << line;
      continue;
    }
    std::string key = line.substr(0, colon), value = line.substr(colon + 2);
    if (key == "operation") {
      c.commit.operation = value;
    } else if (key == "metrics") {
      c.commit.metrics = text_map(value, file.string());
    } else if (key == "parameters") {
      c.commit.parameters = text_map(value, file.string());
    } else if (key == "expect") {
      EXPECT_TRUE(value == "change" || value == "no_change") << file << ": expect is " << value;
      c.expect_change = value == "change";
      has_expect = true;
    } else {
      ADD_FAILURE() << file << ": unknown key " << key;
    }
  }
  EXPECT_TRUE(has_expect) << file << " has no expect line";
  return c;
}

std::vector<CommitCase> all_cases() {
  std::vector<CommitCase> cases;
  for (const auto& entry : fs::directory_iterator(ods::testing::source_dir() / "providers/delta/tests/commit_cases"))
    if (entry.path().extension() == ".case") cases.push_back(read_case(entry.path()));
  std::sort(cases.begin(), cases.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return cases;
}

class CommitRule : public ::testing::TestWithParam<CommitCase> {};

TEST_P(CommitRule, ClassifiesAsTheCaseSays) {
  const CommitCase& c = GetParam();
  CommitVerdict verdict = classify_commit(c.commit);
  EXPECT_EQ(verdict.changes_data, c.expect_change) << c.name << ": " << verdict.why;
  EXPECT_FALSE(verdict.why.empty());
}

INSTANTIATE_TEST_SUITE_P(Cases, CommitRule, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<CommitCase>& param_info) { return param_info.param.name; });

TEST(CommitRule, EveryMaintenanceOperationOfTheListHasACase) {
  std::set<std::string> covered;
  for (const auto& c : all_cases())
    if (!c.expect_change) covered.insert(c.commit.operation);
  for (const char* op : {"OPTIMIZE", "VACUUM START", "VACUUM END", "ANALYZE", "COMPUTE STATS", "SET TBLPROPERTIES",
                         "UNSET TBLPROPERTIES", "CHANGE COLUMN", "ADD CONSTRAINT", "DROP CONSTRAINT",
                         "UPGRADE PROTOCOL", "SET TAGS", "UNSET TAGS", "CLUSTER BY", "REORG", "FSCK"})
    EXPECT_TRUE(covered.contains(op)) << op;
}

}  // namespace
}  // namespace ods::delta
