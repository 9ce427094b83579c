#include "ods/dbt/cli/dbt_binary.h"

#include <gtest/gtest.h>

#include <map>

#include "event_fixtures.h"
#include "process/tests/test_programs.h"

namespace ods::dbt {
namespace {

namespace fs = std::filesystem;
using process::testing::TempDir;

GetEnv env_of(std::map<std::string, std::string> values) {
  return [values = std::move(values)](const std::string& name) {
    auto it = values.find(name);
    return it == values.end() ? std::string() : it->second;
  };
}

bool mentions(const Error& error, const std::string& text) { return error.message.find(text) != std::string::npos; }

TEST(DbtBinary, AnExplicitPathWins) {
  TempDir dir;
  fs::path chosen = dir.script("a/dbt", "exit 0");
  fs::path other = dir.script("b/dbt", "exit 0");
  auto got = resolve_dbt_binary(chosen.string(), env_of({{"ODS_DBT", other.string()}, {"PATH", dir.path() / "b"}}));
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(*got, chosen);
}

TEST(DbtBinary, OdsDbtComesBeforePath) {
  TempDir dir;
  fs::path chosen = dir.script("a/dbt", "exit 0");
  dir.script("b/dbt", "exit 0");
  auto got = resolve_dbt_binary("", env_of({{"ODS_DBT", chosen.string()}, {"PATH", dir.path() / "b"}}));
  ASSERT_TRUE(got);
  EXPECT_EQ(*got, chosen);
}

TEST(DbtBinary, OtherwiseTheFirstDbtOnPath) {
  TempDir dir;
  std::filesystem::create_directories(dir.path() / "empty");
  dir.write("plain/dbt", "not executable");
  fs::path chosen = dir.script("b/dbt", "exit 0");
  dir.script("c/dbt", "exit 0");
  const std::string path = (dir.path() / "empty").string() + ":" + (dir.path() / "plain").string() + ":" +
                           (dir.path() / "b").string() + ":" + (dir.path() / "c").string();
  auto got = resolve_dbt_binary("", env_of({{"PATH", path}}));
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(*got, chosen);
}

TEST(DbtBinary, ANameWithoutSlashIsLookedUpOnPath) {
  TempDir dir;
  fs::path chosen = dir.script("bin/dbt-1.10", "exit 0");
  auto got = resolve_dbt_binary("dbt-1.10", env_of({{"PATH", (dir.path() / "bin").string()}}));
  ASSERT_TRUE(got);
  EXPECT_EQ(*got, chosen);
}

TEST(DbtBinary, ARelativePathIsMadeAbsolute) {
  auto got = resolve_dbt_binary("./" + fs::relative("/bin/sh", fs::current_path()).string(), env_of({}));
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_TRUE(got->is_absolute());
  EXPECT_EQ(fs::canonical(*got), fs::canonical("/bin/sh"));
}

TEST(DbtBinary, AMissingExplicitPathNamesTheFlag) {
  TempDir dir;
  const std::string missing = (dir.path() / "nope" / "dbt").string();
  auto got = resolve_dbt_binary(missing, env_of({{"PATH", "/usr/bin"}}));
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().code, "dbt_not_found");
  EXPECT_TRUE(mentions(got.error(), "--dbt")) << got.error().message;
  EXPECT_TRUE(mentions(got.error(), missing)) << got.error().message;
}

TEST(DbtBinary, AMissingOdsDbtNamesTheVariable) {
  auto got = resolve_dbt_binary("", env_of({{"ODS_DBT", "/no/such/dbt"}}));
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().code, "dbt_not_found");
  EXPECT_TRUE(mentions(got.error(), "ODS_DBT '/no/such/dbt'")) << got.error().message;
}

TEST(DbtBinary, NoDbtOnPathListsWhereItLooked) {
  TempDir dir;
  dir.write("plain/dbt", "not executable");
  const std::string path = "/nonexistent-a:" + (dir.path() / "plain").string();
  auto got = resolve_dbt_binary("", env_of({{"PATH", path}}));
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().code, "dbt_not_found");
  EXPECT_TRUE(mentions(got.error(), "/nonexistent-a")) << got.error().message;
  EXPECT_TRUE(mentions(got.error(), (dir.path() / "plain").string())) << got.error().message;
  EXPECT_TRUE(mentions(got.error(), "not executable")) << got.error().message;
  EXPECT_TRUE(mentions(got.error(), "--dbt PATH or ODS_DBT")) << got.error().message;

  auto empty = resolve_dbt_binary("", env_of({}));
  ASSERT_FALSE(empty);
  EXPECT_TRUE(mentions(empty.error(), "PATH is empty")) << empty.error().message;
}

TEST(DbtBinary, AChosenFileThatIsNotExecutable) {
  TempDir dir;
  fs::path plain = dir.write("dbt", "not executable");
  auto got = resolve_dbt_binary(plain.string(), env_of({}));
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().code, "permission_denied");
  auto directory = resolve_dbt_binary(dir.path().string(), env_of({}));
  ASSERT_FALSE(directory);
  EXPECT_EQ(directory.error().code, "permission_denied");
}

}  // namespace
}  // namespace ods::dbt
