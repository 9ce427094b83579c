// The profile output dbt would connect with, read before dbt runs (profile_output.h): every
// rendered form, and each refusal with its reason.
#include "ods/dbt/profile_output.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "fixture_util.h"

namespace ods::dbt {
namespace {

const std::map<std::string, std::string> kEnv{
    {"PGHOST", "db.internal"}, {"PGPORT", "6543"}, {"PGFRAC", "12.7"}, {"WORD", "abc"}};

std::string env(const std::string& name) {
  const auto it = kEnv.find(name);
  return it == kEnv.end() ? std::string() : it->second;
}

std::expected<std::string, std::string> render(const std::string& text) { return render_profile_value(text, env); }

void expect_refused(const std::string& text, const std::string& reason) {
  auto r = render(text);
  ASSERT_FALSE(r) << text << " rendered as " << *r;
  EXPECT_NE(r.error().find(reason), std::string::npos) << text << ": " << r.error();
}

TEST(ProfileValue, LiteralsStayAsTheyAre) {
  EXPECT_EQ(render("127.0.0.1"), "127.0.0.1");
  EXPECT_EQ(render(""), "");
  EXPECT_EQ(render("{{ 'quoted' }}"), "quoted");
  EXPECT_EQ(render("{{ 5432 }}"), "5432");
}

TEST(ProfileValue, EnvVarWithAndWithoutDefault) {
  EXPECT_EQ(render("{{ env_var('PGHOST') }}"), "db.internal");
  EXPECT_EQ(render("{{env_var(\"PGHOST\")}}"), "db.internal");
  EXPECT_EQ(render("{{ env_var('UNSET', 'localhost') }}"), "localhost");
  EXPECT_EQ(render("{{ env_var('PGHOST', 'localhost') }}"), "db.internal");
  EXPECT_EQ(render("{{ env_var('UNSET', '') }}"), "");
  EXPECT_EQ(render("{{ env_var('UNSET', 5432) }}"), "5432");
  EXPECT_EQ(render("postgres://{{ env_var('PGHOST') }}:{{ env_var('PGPORT') }}/x"), "postgres://db.internal:6543/x");
}

TEST(ProfileValue, Filters) {
  EXPECT_EQ(render("{{ env_var('PGPORT') | as_number }}"), "6543");
  EXPECT_EQ(render("{{ env_var('UNSET', '5432') | as_number }}"), "5432");
  EXPECT_EQ(render("{{ env_var('PGPORT') | int }}"), "6543");
  EXPECT_EQ(render("{{ env_var('PGFRAC') | int }}"), "12");  // Jinja's int(float())
  EXPECT_EQ(render("{{ env_var('PGHOST') | as_text }}"), "db.internal");
  EXPECT_EQ(render("{{ env_var('PGPORT') | string }}"), "6543");
  EXPECT_EQ(render("{{ env_var('PGPORT') | int | as_text }}"), "6543");
}

TEST(ProfileValue, EachRefusalSaysWhy) {
  expect_refused("{{ env_var('UNSET') }}", "environment variable 'UNSET' is not set and has no default");
  expect_refused("{{ env_var('WORD') | as_number }}", "not a number (as_number)");
  expect_refused("{{ env_var('WORD') | int }}", "not a number (int)");
  expect_refused("{{ env_var('PGHOST') | upper }}", "the filter 'upper' is not one ODS renders");
  expect_refused("{{ env_var('PGHOST') | replace('a', 'b') }}", "Jinja ODS doesn't render");
  expect_refused("{{ var('host') }}", "Jinja ODS doesn't render");
  expect_refused("{{ target.name }}", "Jinja ODS doesn't render");
  expect_refused("{{ env_var('PGHOST') ~ 'x' }}", "Jinja ODS doesn't render");
  expect_refused("{% if true %}a{% endif %}", "Jinja statements or comments");
  expect_refused("{# note #}a", "Jinja statements or comments");
  expect_refused("{{ env_var('PGHOST') ", "without its '}}'");
  expect_refused("{{ 'a\\'b' }}", "escapes");
}

TEST(ProfileValue, ReasonsNeverQuoteTheValue) {
  auto r = render("{{ 's3cr3t' | int }}");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().find("s3cr3t"), std::string::npos) << r.error();
  r = render("s3cr3t{% x %}");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().find("s3cr3t"), std::string::npos) << r.error();
}

TargetChoice choice_of(const std::string& profiles, const std::string& target) {
  TargetChoice c;
  c.name = target;
  c.profile = "shop";
  c.profiles_file = testing::temp_file("profiles.yml");
  std::ofstream(c.profiles_file) << profiles;
  return c;
}

TEST(ProfileOutput, TheChosenOutputsScalarsRendered) {
  auto out = read_profile_output(choice_of(R"(shop:
  target: dev
  outputs:
    dev: {type: duckdb}
    pg:
      type: postgres
      host: "{{ env_var('PGHOST', '127.0.0.1') }}"
      port: "{{ env_var('PGPORT', '5432') | as_number }}"
      threads: 4
      password: ""
      nothing: ~
      search_path: [a, b]
)",
                                           "pg"),
                                 env);
  ASSERT_TRUE(out) << out.error();
  EXPECT_EQ(out->target, "pg");
  EXPECT_EQ(out->fields,
            (std::map<std::string, std::string>{
                {"type", "postgres"}, {"host", "db.internal"}, {"port", "6543"}, {"threads", "4"}, {"password", ""}}));
}

TEST(ProfileOutput, RefusalsNameTheFieldAndWhy) {
  const std::string profiles = "shop:\n  outputs:\n    pg: {type: postgres, user: \"{{ env_var('NOBODY') }}\"}\n";
  auto out = read_profile_output(choice_of(profiles, "pg"), env);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error(), "field 'user': environment variable 'NOBODY' is not set and has no default");
  out = read_profile_output(choice_of(profiles, "prod"), env);
  ASSERT_FALSE(out);
  EXPECT_NE(out.error().find("has no output 'prod' in profile 'shop'"), std::string::npos) << out.error();
  TargetChoice unknown;
  unknown.unknown_why = "no profiles.yml was found";
  out = read_profile_output(unknown, env);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error(), "the target is not known before dbt runs (no profiles.yml was found)");
}

}  // namespace
}  // namespace ods::dbt
