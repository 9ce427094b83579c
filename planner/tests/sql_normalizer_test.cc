// SQL normalisation (#209). Data-driven: every planner/tests/cases/sql/*.case is one case
// (format in cases/sql/README.md); a new case is a new file. Plus property tests.
#include "ods/planner/sql_normalizer.h"

#include <gtest/gtest.h>

#include <random>

#include "case_file.h"
#include "harness/source_paths.h"

namespace {

namespace fs = std::filesystem;
using ods::planner::normalize_sql;

fs::path sql_cases_dir() { return ods::testing::source_dir() / "planner/tests/cases/sql"; }

TEST(SqlNormalizerCases, DirectoryHasCases) {
  EXPECT_FALSE(ods::test_cases::case_paths(sql_cases_dir()).empty()) << sql_cases_dir();
}

class SqlNormalizerCase : public ::testing::TestWithParam<fs::path> {};

TEST_P(SqlNormalizerCase, MatchesExpectation) {
  const auto sections = ods::test_cases::read_sections(GetParam());
  ASSERT_TRUE(sections.contains("input")) << "no '=== input' section";
  const bool wants_text = sections.contains("expected");
  ASSERT_NE(wants_text, sections.contains("gives_up")) << "need exactly one of expected, gives_up";
  const std::string& input = sections.at("input");

  const auto result = normalize_sql(input);
  if (wants_text) {
    EXPECT_TRUE(result.normalised) << "gave up: " << result.give_up;
    EXPECT_EQ(result.text, sections.at("expected"));
    EXPECT_EQ(result.give_up, "");
  } else {
    EXPECT_FALSE(result.normalised) << "normalised to: " << result.text;
    EXPECT_EQ(result.text, input) << "giving up must return the raw text";
    EXPECT_NE(result.give_up.find(sections.at("gives_up")), std::string::npos) << "reason: " << result.give_up;
  }
}

INSTANTIATE_TEST_SUITE_P(Files, SqlNormalizerCase, ::testing::ValuesIn(ods::test_cases::case_paths(sql_cases_dir())),
                         [](const auto& case_info) { return ods::test_cases::test_name(case_info.param); });

// Token lists whose tokens may be separated by any whitespace or comment.
const std::vector<std::vector<std::string>> kTokenLists = {
    {"select", "a", ",", "count", "(", "*", ")", "from", "s.t", "where", "b", ">=", "1e-5"},
    {"SELECT", "\"Col\"", "AS", "x", "FROM", "db.t", "-", "3", "/*+ INDEX(t i) */"},
    {"with", "c", "as", "(", "select", "'a  b'", "||", "`q`", "::", "text", ")", "select", "*", "from", "c", ";"},
    {"case", "when", "x", "<>", "'y'", "then", "1", "else", "-", "1", "end", "%", "2"},
};

const std::vector<std::string> kSeparators = {" ",
                                              "\n",
                                              "\t",
                                              "  \r\n  ",
                                              "\f",
                                              "\v",
                                              " /* c */ ",
                                              " -- note\n",
                                              "/**/",
                                              " /*- x\n -*/\n",
                                              "\n/*= banner =*/\n",
                                              " /***/ ",
                                              " -- \n"};

std::string join(const std::vector<std::string>& tokens, std::mt19937& random) {
  std::uniform_int_distribution<std::size_t> pick(0, kSeparators.size() - 1);
  std::string out = kSeparators[pick(random)];
  for (const auto& token : tokens) out += token + kSeparators[pick(random)];
  return out;
}

TEST(SqlNormalizerProperty, OnlyWhitespaceAndCommentsDifferNormaliseEqual) {
  std::mt19937 random(20240229);
  for (const auto& tokens : kTokenLists) {
    std::string single_spaced;
    for (const auto& token : tokens) single_spaced += (single_spaced.empty() ? "" : " ") + token;
    for (int variant = 0; variant < 200; ++variant) {
      const std::string sql = join(tokens, random);
      const auto result = normalize_sql(sql);
      ASSERT_TRUE(result.normalised) << result.give_up << " in: " << sql;
      ASSERT_EQ(result.text, single_spaced) << "from: " << sql;
    }
  }
}

TEST(SqlNormalizerProperty, CommentsTouchingTokensDoNotCount) {
  EXPECT_EQ(normalize_sql("a/* c */b").text, normalize_sql("a b").text);
  EXPECT_EQ(normalize_sql("x=1-- c\n").text, normalize_sql("x = 1").text);
  EXPECT_EQ(normalize_sql("f(/**/x/**/)").text, normalize_sql("f ( x )").text);
}

// Pairs that differ in more than whitespace: they must never normalise equal.
TEST(SqlNormalizerProperty, OtherChangesNeverNormaliseEqual) {
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"a>=b", "a> =b"},
      {"a<>b", "a< >b"},
      {"a||b", "a| |b"},
      {"a::int", "a: :int"},
      {"x!=1", "x! =1"},
      {"ab", "a b"},
      {"1e-5", "1e - 5"},
      {"'a b'", "'a  b'"},
      {"\"A\"", "\"a\""},
      {"Select", "select"},
      {"/*+ A */ x", "/*+  A */ x"},
      {"a- -b", "a -b"},
      {"a*/**/b", "a */b"},
      {"s.t", "st"},
  };
  for (const auto& [left, right] : pairs) {
    const auto l = normalize_sql(left);
    const auto r = normalize_sql(right);
    ASSERT_TRUE(l.normalised) << left << ": " << l.give_up;
    ASSERT_TRUE(r.normalised) << right << ": " << r.give_up;
    EXPECT_NE(l.text, r.text) << left << " vs " << right;
  }
}

}  // namespace
