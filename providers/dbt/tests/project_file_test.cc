// dbt_project.yml read with yaml-cpp: the name in its YAML forms (quoted, commented, among
// Jinja-bearing values, after nested maps), and each refusal naming the file (and the line).
#include "ods/dbt/project_file.h"

#include <gtest/gtest.h>

#include <fstream>

#include "fixture_util.h"

namespace ods::dbt {
namespace {

namespace fs = std::filesystem;

// A project directory holding dbt_project.yml with `text`.
fs::path project_with(const std::string& text) {
  const fs::path file = testing::temp_file("dbt_project.yml");
  std::ofstream(file, std::ios::binary) << text;
  return file.parent_path();
}

std::string error_of(const std::string& text) {
  auto read = read_project_file(project_with(text));
  EXPECT_FALSE(read) << "read a name: " << (read ? read->name : "");
  return read ? "" : read.error().code + ": " + read.error().message;
}

TEST(ProjectFile, ReadsTheTopLevelName) {
  auto plain = read_project_file(project_with("name: shop\nprofile: shop\n"));
  ASSERT_TRUE(plain) << plain.error().message;
  EXPECT_EQ(plain->name, "shop");

  auto quoted = read_project_file(project_with("version: '1.0'\nname: \"jaffle_shop\"  # the project\n"));
  ASSERT_TRUE(quoted) << quoted.error().message;
  EXPECT_EQ(quoted->name, "jaffle_shop");

  // A nested `name:` is not the project's, whichever comes first; Jinja elsewhere is kept as text.
  auto nested = read_project_file(
      project_with("models:\n  name: not_this\n  shop:\n    +schema: \"{{ env_var('SCHEMA') }}\"\nname: _shop2\n"));
  ASSERT_TRUE(nested) << nested.error().message;
  EXPECT_EQ(nested->name, "_shop2");

  auto flow = read_project_file(project_with("{name: shop, profile: shop}\n"));
  ASSERT_TRUE(flow) << flow.error().message;
  EXPECT_EQ(flow->name, "shop");
}

TEST(ProjectFile, AMissingFileSaysWhichAndWhy) {
  const fs::path dir = testing::temp_file("x").parent_path();
  auto read = read_project_file(dir);
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().code, "usage");
  EXPECT_NE(read.error().message.find((dir / "dbt_project.yml").string() + ": not found"), std::string::npos)
      << read.error().message;
}

TEST(ProjectFile, MalformedYamlNamesTheLineAndColumn) {
  const std::string error = error_of("name: shop\nmodels:\n  shop: [unclosed\n");
  EXPECT_NE(error.find("usage: "), std::string::npos) << error;
  EXPECT_NE(error.find("dbt_project.yml:"), std::string::npos) << error;
  EXPECT_NE(error.find("not valid YAML"), std::string::npos) << error;

  const std::string tab_indent = error_of("name: shop\nmodels:\n\t shop: {}\n");
  EXPECT_NE(tab_indent.find("dbt_project.yml:3:"), std::string::npos) << tab_indent;
}

TEST(ProjectFile, RefusesATopLevelThatIsNotAMapping) {
  EXPECT_NE(error_of("- name: shop\n").find("the top level is not a mapping"), std::string::npos);
  EXPECT_NE(error_of("").find("the top level is not a mapping"), std::string::npos);
  EXPECT_NE(error_of("just text\n").find("the top level is not a mapping"), std::string::npos);
}

TEST(ProjectFile, RefusesAMissingOrUnusableName) {
  EXPECT_NE(error_of("profile: shop\n").find("no top-level `name:`"), std::string::npos);
  EXPECT_NE(error_of("models:\n  name: shop\n").find("no top-level `name:`"), std::string::npos);
  EXPECT_NE(error_of("profile: shop\nname:\n").find("dbt_project.yml:2: `name:` is not a string"), std::string::npos);
  EXPECT_NE(error_of("name: [shop]\n").find("`name:` is not a string"), std::string::npos);
  EXPECT_NE(error_of("name: my-shop\n").find("`name: my-shop` is not a dbt project name"), std::string::npos);
  EXPECT_NE(error_of("name: 1shop\n").find("is not a dbt project name"), std::string::npos);
  EXPECT_NE(error_of("name: \"{{ var('x') }}\"\n").find("is not a dbt project name"), std::string::npos);
}

// `quoting:` as the native probe reads it (issue 41 item 3): plain booleans; anything else says
// why, and leaves all three unset.
TEST(ProjectFile, ReadsPlainQuotingAndSaysWhyOtherwise) {
  auto none = read_project_file(project_with("name: shop\n"));
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_FALSE(none->quote_database || none->quote_schema || none->quote_identifier);
  EXPECT_EQ(none->quoting_unknown, "");

  auto plain = read_project_file(project_with("name: shop\nquoting:\n  identifier: false\n  schema: true\n"));
  ASSERT_TRUE(plain) << plain.error().message;
  EXPECT_FALSE(plain->quote_database.has_value());
  EXPECT_EQ(plain->quote_schema, std::optional<bool>(true));
  EXPECT_EQ(plain->quote_identifier, std::optional<bool>(false));
  EXPECT_EQ(plain->quoting_unknown, "");

  auto jinja =
      read_project_file(project_with("name: shop\nquoting:\n  schema: false\n  identifier: \"{{ var('q') }}\"\n"));
  ASSERT_TRUE(jinja) << jinja.error().message;
  EXPECT_FALSE(jinja->quote_schema.has_value());
  EXPECT_EQ(jinja->quoting_unknown, "dbt_project.yml's `quoting: identifier` is not true or false");

  auto list = read_project_file(project_with("name: shop\nquoting: [a]\n"));
  ASSERT_TRUE(list) << list.error().message;
  EXPECT_EQ(list->quoting_unknown, "dbt_project.yml's `quoting:` is not a mapping");
}

}  // namespace
}  // namespace ods::dbt
