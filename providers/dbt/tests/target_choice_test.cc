// The target a command runs against, decided before dbt runs as dbt decides it (target_choice.h):
// the flag, $DBT_TARGET, the profile's `target:` (env_var rendered), "default" without one, and
// dbt's refusal of a target the profile lacks.
#include "ods/dbt/target_choice.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "fixture_util.h"

namespace ods::dbt {
namespace {

namespace fs = std::filesystem;

const char* const kProfiles = R"(shop:
  target: dev
  outputs:
    dev: {type: duckdb, path: shop.duckdb}
    pr: {type: duckdb, path: shop.duckdb, schema: pr}
other:
  target: "{{ env_var('OTHER_TARGET', 'pr') }}"
  outputs:
    prod: {type: duckdb}
    pr: {type: duckdb}
bare:
  outputs:
    default: {type: duckdb}
)";

struct Project {
  fs::path dir;
  std::map<std::string, std::string> env;
  explicit Project(const std::string& profile = "shop", const char* profiles = kProfiles) {
    dir = testing::temp_file("dbt_project.yml").parent_path();
    std::ofstream(dir / "dbt_project.yml") << "name: shop\nprofile: " << profile << "\n";
    if (profiles != nullptr) std::ofstream(dir / "profiles.yml") << profiles;
  }
  Result<TargetChoice> choose(const std::string& flag = "", const std::string& profiles_dir = "") const {
    return choose_target(dir, flag, profiles_dir, [this](const std::string& name) {
      const auto it = env.find(name);
      return it == env.end() ? std::string() : it->second;
    });
  }
};

TEST(TargetChoice, WithoutTargetTheProfilesDefaultIsTheTarget) {
  const Project p;
  auto choice = p.choose();
  ASSERT_TRUE(choice) << choice.error().message;
  EXPECT_EQ(choice->name, "dev");
  EXPECT_EQ(choice->profile, "shop");
  EXPECT_EQ(choice->targets, (std::vector<std::string>{"dev", "pr"}));
  EXPECT_EQ(choice->profiles_file, p.dir / "profiles.yml");
  EXPECT_NE(choice->how.find("default target of profile 'shop'"), std::string::npos) << choice->how;
}

TEST(TargetChoice, TheFlagThenDbtTargetWin) {
  Project p;
  EXPECT_EQ(p.choose("pr")->name, "pr");
  EXPECT_EQ(p.choose("pr")->profile_default, "dev");
  p.env["DBT_TARGET"] = "pr";
  EXPECT_EQ(p.choose()->name, "pr");
  EXPECT_EQ(p.choose("dev")->name, "dev");
}

TEST(TargetChoice, AnUnknownTargetIsRefusedInDbtsWords) {
  Project p;
  auto typo = p.choose("nosuch");
  ASSERT_FALSE(typo);
  EXPECT_EQ(typo.error().code, "usage");
  EXPECT_NE(typo.error().message.find("The profile 'shop' does not have a target named 'nosuch'"), std::string::npos)
      << typo.error().message;
  EXPECT_NE(typo.error().message.find("\n - dev\n - pr"), std::string::npos) << typo.error().message;
  p.env["DBT_TARGET"] = "prod";
  EXPECT_FALSE(p.choose());
}

TEST(TargetChoice, EnvVarInTheTargetKeyIsRendered) {
  Project p("other");
  EXPECT_EQ(p.choose()->name, "pr");  // the fallback
  p.env["OTHER_TARGET"] = "prod";
  EXPECT_EQ(p.choose()->name, "prod");
  p.env["DBT_PROFILE"] = "shop";  // dbt's --profile as a variable
  EXPECT_EQ(p.choose()->name, "dev");
}

TEST(TargetChoice, AProfileWithoutTargetDefaultsToDefault) {
  const Project p("bare");
  EXPECT_EQ(p.choose()->name, "default");
}

TEST(TargetChoice, ProfilesDirFlagThenVariableThenProjectDirThenHome) {
  Project p("shop", nullptr);  // no profiles.yml in the project
  auto none = p.choose();
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_EQ(none->name, "");  // left to dbt
  EXPECT_FALSE(none->unknown_why.empty());
  const fs::path elsewhere = testing::temp_file("profiles.yml");
  std::ofstream(elsewhere) << "shop:\n  target: pr\n  outputs:\n    pr: {type: duckdb}\n";
  EXPECT_EQ(p.choose("", elsewhere.parent_path().string())->name, "pr");
  p.env["DBT_PROFILES_DIR"] = elsewhere.parent_path().string();
  EXPECT_EQ(p.choose()->name, "pr");
  p.env.erase("DBT_PROFILES_DIR");
  fs::create_directories(p.dir / "home" / ".dbt");
  fs::copy_file(elsewhere, p.dir / "home" / ".dbt" / "profiles.yml");
  p.env["HOME"] = (p.dir / "home").string();
  EXPECT_EQ(p.choose()->name, "pr");
}

TEST(TargetChoice, JinjaItCannotRenderLeavesTheChoiceToDbt) {
  const Project p("shop", "shop:\n  target: \"{{ var('t') }}\"\n  outputs:\n    dev: {type: duckdb}\n");
  auto choice = p.choose();
  ASSERT_TRUE(choice) << choice.error().message;
  EXPECT_EQ(choice->name, "");
  EXPECT_NE(choice->unknown_why.find("Jinja"), std::string::npos);
}

}  // namespace
}  // namespace ods::dbt
