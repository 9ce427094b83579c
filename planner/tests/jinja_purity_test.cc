// Jinja purity (#209) and run-context mentions (#218). Data-driven: every
// planner/tests/cases/jinja/*.case is one case (format in cases/jinja/README.md).
#include "ods/planner/jinja_purity.h"

#include <gtest/gtest.h>

#include "case_file.h"
#include "harness/source_paths.h"

namespace {

namespace fs = std::filesystem;
using ods::planner::jinja_impurity;
using ods::planner::reads_run_context;

fs::path jinja_cases_dir() { return ods::testing::source_dir() / "planner/tests/cases/jinja"; }

TEST(JinjaPurityCases, DirectoryHasCases) {
  EXPECT_FALSE(ods::test_cases::case_paths(jinja_cases_dir()).empty()) << jinja_cases_dir();
}

class JinjaCase : public ::testing::TestWithParam<fs::path> {};

TEST_P(JinjaCase, MatchesExpectation) {
  const auto sections = ods::test_cases::read_sections(GetParam());
  ASSERT_TRUE(sections.contains("input")) << "no '=== input' section";
  ASSERT_FALSE(sections.contains("pure") && sections.contains("impure")) << "pure and impure";
  const bool checks_purity = sections.contains("pure") || sections.contains("impure");
  ASSERT_TRUE(checks_purity || sections.contains("run_context")) << "no expectation";
  const std::string& input = sections.at("input");

  if (sections.contains("pure")) {
    const auto impurity = jinja_impurity(input);
    EXPECT_FALSE(impurity.has_value()) << *impurity;
  }
  if (sections.contains("impure")) {
    const auto impurity = jinja_impurity(input);
    ASSERT_TRUE(impurity.has_value()) << "judged pure";
    EXPECT_NE(impurity->find(sections.at("impure")), std::string::npos) << "reason: " << *impurity;
  }
  if (sections.contains("run_context")) {
    const std::string& expected = sections.at("run_context");
    const auto word = reads_run_context(input);
    if (expected == "none") {
      EXPECT_FALSE(word.has_value()) << *word;
    } else {
      ASSERT_TRUE(word.has_value()) << "found no run-context word";
      EXPECT_EQ(*word, expected);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Files, JinjaCase, ::testing::ValuesIn(ods::test_cases::case_paths(jinja_cases_dir())),
                         [](const auto& case_info) { return ods::test_cases::test_name(case_info.param); });

TEST(JinjaPurity, PlainSqlIsPure) { EXPECT_FALSE(jinja_impurity("select 1 from t").has_value()); }

TEST(JinjaPurity, ReasonNamesTheLineOfTheCall) {
  const auto impurity = jinja_impurity("select\n  1\n{{ ref('a') }}\n{{ run_query('x') }}");
  ASSERT_TRUE(impurity.has_value());
  EXPECT_EQ(*impurity, "calls run_query at line 4");
}

TEST(ReadsRunContext, ReturnsTheFirstWordInTheText) {
  EXPECT_EQ(reads_run_context("{{ flags.FULL_REFRESH }} {{ target.name }}"), "flags");
}

}  // namespace
