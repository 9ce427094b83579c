// Data-driven check-plan cases: every planner/tests/cases/checks/*.json is one case (format in
// cases/checks/README.md), run through ods::planner::plan_checks.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "json_cases.h"
#include "ods/planner/checks.h"
#include "ods/planner/json_io.h"

using nlohmann::json;
using namespace ods::planner;

namespace {

std::vector<std::string> case_names() { return ods::test_cases::json_case_names("checks"); }

class CheckCase : public ::testing::TestWithParam<std::string> {};

TEST(CheckCases, DirectoryHasCases) { EXPECT_GE(case_names().size(), 8u); }

TEST_P(CheckCase, MatchesExpectation) {
  json c = ods::test_cases::load_json_case("checks", GetParam());
  auto start = ods::test_cases::case_start(c);
  ASSERT_TRUE(start) << start.error().message;
  CheckOptions options;
  if (c.contains("selected")) options.selected = c["selected"].get<std::vector<std::string>>();
  CheckPlan result = plan_checks(start->inputs, start->previous_or_null(), options);

  const json& expect = c.at("expect");
  std::vector<std::string> order;
  for (const auto& e : result.entries) {
    order.push_back(e.id);
    ASSERT_TRUE(expect.contains(e.id)) << "unexpected entry " << e.id;
    const json& want = expect[e.id];
    ASSERT_EQ(e.reasons.size(), 1u) << e.id;
    ods::test_cases::expect_entry_as(e, want);
  }
  std::set<std::string> seen(order.begin(), order.end());
  for (const auto& [id, _] : expect.items()) EXPECT_TRUE(seen.contains(id)) << "missing entry " << id;
  if (c.contains("expect_without_checks")) {
    EXPECT_EQ(result.without_checks, c["expect_without_checks"].get<int>());
  }
  if (c.contains("expect_order")) {
    EXPECT_EQ(order, c["expect_order"].get<std::vector<std::string>>());
  }
  if (c.contains("expect_warning_mentions")) {
    bool found = false;
    for (const auto& w : result.warnings)
      found |= w.find(c["expect_warning_mentions"].get<std::string>()) != std::string::npos;
    EXPECT_TRUE(found) << "no warning mentions " << c["expect_warning_mentions"];
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, CheckCase, ::testing::ValuesIn(case_names()),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace
