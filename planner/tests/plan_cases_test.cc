// Data-driven planner cases: every planner/tests/cases/plan/*.json is one case (format in
// cases/plan/README.md). A new case is a new file.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "json_cases.h"
#include "ods/planner/json_io.h"
#include "ods/planner/planner.h"

using nlohmann::json;
using namespace ods::planner;

namespace {

std::vector<std::string> case_names() { return ods::test_cases::json_case_names("plan"); }
json load(const std::string& name) { return ods::test_cases::load_json_case("plan", name); }

class PlanCase : public ::testing::TestWithParam<std::string> {};

TEST(PlanCases, DirectoryHasCases) { EXPECT_GE(case_names().size(), 10u); }

TEST_P(PlanCase, MatchesExpectation) {
  json c = load(GetParam());
  auto start = ods::test_cases::case_start(c);
  ASSERT_TRUE(start) << start.error().message;
  PlanOptions options;
  options.now = c.value("now", "2026-11-29T12:00:00Z");
  if (c.contains("selected")) options.selected = c["selected"].get<std::vector<std::string>>();
  if (c.contains("built_earlier")) options.built_earlier = c["built_earlier"].get<std::map<std::string, bool>>();
  if (c.contains("relations_exist")) options.relations_exist = c["relations_exist"].get<std::map<std::string, bool>>();
  if (c.contains("relation_identities"))
    options.relation_identities = c["relation_identities"].get<std::map<std::string, std::string>>();
  auto result = plan(start->inputs, start->previous_or_null(), options);
  if (c.contains("expect_error")) {
    ASSERT_FALSE(result) << "expected error " << c["expect_error"];
    EXPECT_EQ(result.error().code, c["expect_error"].get<std::string>());
    if (c.contains("expect_error_mentions")) {
      EXPECT_NE(result.error().message.find(c["expect_error_mentions"].get<std::string>()), std::string::npos)
          << result.error().message;
    }
    return;
  }
  ASSERT_TRUE(result) << result.error().message;
  const json& expect = c.at("expect");
  std::set<std::string> seen;
  for (const auto& e : result->entries) {
    seen.insert(e.id);
    ASSERT_TRUE(expect.contains(e.id)) << "unexpected entry " << e.id;
    const json& want = expect[e.id];
    ASSERT_FALSE(e.reasons.empty()) << e.id;
    ods::test_cases::expect_entry_as(e, want);
    if (want.contains("also")) {
      bool found = false;
      for (const auto& r : e.reasons) found |= r.code == want["also"].get<std::string>();
      EXPECT_TRUE(found) << e.id << " lacks reason " << want["also"];
    }
  }
  for (const auto& [id, _] : expect.items()) EXPECT_TRUE(seen.contains(id)) << "missing entry " << id;
  if (c.contains("expect_select")) {
    EXPECT_EQ(result->select, c["expect_select"].get<std::string>());
  }
  if (c.contains("expect_order")) {
    std::vector<std::string> order;
    for (const auto& e : result->entries) order.push_back(e.id);
    EXPECT_EQ(order, c["expect_order"].get<std::vector<std::string>>());
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, PlanCase, ::testing::ValuesIn(case_names()),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace
