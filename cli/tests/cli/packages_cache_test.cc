// The packages cache (packages_cache.h) on real folders: a save restored file for file, the key
// following the lockfile, a damaged entry refused and replaced, a race lost to a whole entry, a
// list naming a path outside the entry, links not cached.
#include "packages_cache.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "harness/temp_dir.h"

namespace ods::cli {
namespace {

namespace fs = std::filesystem;

std::string text_of(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class PackagesCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    project_ = dir_.path() / "project";
    cache_ = dir_.path() / "cache";
    write(project_ / "packages.yml", "packages:\n  - package: dbt-labs/dbt_utils\n    version: 1.3.0\n");
    write(project_ / "dbt_packages" / "dbt_utils" / "dbt_project.yml", "name: dbt_utils\n");
    write(project_ / "dbt_packages" / "dbt_utils" / "macros" / "star.sql", "{% macro star() %}*{% endmacro %}\n");
    fs::create_directories(project_ / "dbt_packages" / "dbt_utils" / "empty");
    fs::permissions(project_ / "dbt_packages" / "dbt_utils" / "macros" / "star.sql", fs::perms::owner_read);
  }
  static void write(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  std::string key() {
    auto k = packages_cache_key(project_, "packages.yml", "1.10.15");
    EXPECT_TRUE(k) << k.error().message;
    return k ? *k : "";
  }
  // A fresh checkout: the project without its installed packages.
  void remove_installed() {
    fs::permissions(project_ / "dbt_packages" / "dbt_utils" / "macros" / "star.sql", fs::perms::owner_all);
    fs::remove_all(project_ / "dbt_packages");
  }

  testing::TempDir dir_{"packages-cache"};
  fs::path project_;
  fs::path cache_;
};

TEST_F(PackagesCacheTest, ASavedEntryIsRestoredFileForFile) {
  const std::string k = key();
  ASSERT_EQ(k.size(), 64u);
  auto saved = save_packages(cache_, k, project_ / "dbt_packages");
  ASSERT_TRUE(saved) << saved.error().message;
  EXPECT_EQ(saved->outcome, SaveOutcome::saved);
  EXPECT_TRUE(fs::exists(cache_ / k / "entry.json"));
  for (const auto& e : fs::directory_iterator(cache_))
    EXPECT_EQ(e.path().filename(), k) << "left behind: " << e.path();  // no temporary folder stays

  remove_installed();
  fs::create_directories(project_ / "dbt_packages");  // an empty folder is taken as absent
  auto restored = restore_packages(cache_, k, project_ / "dbt_packages");
  ASSERT_TRUE(restored) << restored.error().message;
  EXPECT_EQ(restored->outcome, RestoreOutcome::restored) << restored->why;
  EXPECT_EQ(text_of(project_ / "dbt_packages" / "dbt_utils" / "macros" / "star.sql"),
            "{% macro star() %}*{% endmacro %}\n");
  EXPECT_EQ(fs::status(project_ / "dbt_packages" / "dbt_utils" / "macros" / "star.sql").permissions(),
            fs::perms::owner_read);
  EXPECT_TRUE(fs::is_directory(project_ / "dbt_packages" / "dbt_utils" / "empty"));
  for (const auto& e : fs::directory_iterator(project_))
    EXPECT_FALSE(e.path().filename().string().starts_with(".")) << "left behind: " << e.path();
}

TEST_F(PackagesCacheTest, TheKeyFollowsTheLockfileTheDeclarationAndDbtsVersion) {
  const std::string without_lock = key();
  write(project_ / "package-lock.yml", "packages:\n  - package: dbt-labs/dbt_utils\n    version: 1.3.0\n");
  const std::string locked = key();
  EXPECT_NE(locked, without_lock);
  EXPECT_EQ(key(), locked);  // the same files, the same key
  write(project_ / "package-lock.yml", "packages:\n  - package: dbt-labs/dbt_utils\n    version: 1.3.1\n");
  EXPECT_NE(key(), locked);
  EXPECT_NE(*packages_cache_key(project_, "packages.yml", "1.11.0"), key());
  EXPECT_FALSE(packages_cache_key(project_, "dependencies.yml", "1.10.15"));  // the declaring file must be readable
}

TEST_F(PackagesCacheTest, NoEntryIsAbsentAndLeavesThePackagesFolderAlone) {
  remove_installed();
  auto restored = restore_packages(cache_, key(), project_ / "dbt_packages");
  ASSERT_TRUE(restored) << restored.error().message;
  EXPECT_EQ(restored->outcome, RestoreOutcome::absent);
  EXPECT_FALSE(fs::exists(project_ / "dbt_packages"));
}

TEST_F(PackagesCacheTest, ADamagedEntryIsNeverRestoredAndASaveReplacesIt) {
  const std::string k = key();
  ASSERT_TRUE(save_packages(cache_, k, project_ / "dbt_packages"));
  const fs::path cached = cache_ / k / "dbt_packages" / "dbt_utils" / "macros" / "star.sql";
  fs::permissions(cached, fs::perms::owner_all);
  std::ofstream(cached) << "{% macro star() %}evil{% endmacro %}\n";
  remove_installed();
  auto restored = restore_packages(cache_, k, project_ / "dbt_packages");
  ASSERT_TRUE(restored) << restored.error().message;
  EXPECT_EQ(restored->outcome, RestoreOutcome::damaged);
  EXPECT_EQ(restored->why, "dbt_packages/dbt_utils/macros/star.sql does not match its digest");
  EXPECT_FALSE(fs::exists(project_ / "dbt_packages"));  // nothing of it copied

  // Installed again (dbt deps in the pod), saved over the damaged entry.
  write(project_ / "dbt_packages" / "dbt_utils" / "macros" / "star.sql", "{% macro star() %}*{% endmacro %}\n");
  auto saved = save_packages(cache_, k, project_ / "dbt_packages");
  ASSERT_TRUE(saved) << saved.error().message;
  EXPECT_EQ(saved->outcome, SaveOutcome::saved);
  EXPECT_EQ(text_of(cached), "{% macro star() %}*{% endmacro %}\n");

  // Partial: a file gone, the list cut short.
  fs::remove(cached);
  fs::remove_all(project_ / "dbt_packages");
  EXPECT_EQ(restore_packages(cache_, k, project_ / "dbt_packages")->why,
            "dbt_packages/dbt_utils/macros/star.sql is missing");
  const std::string list = text_of(cache_ / k / "entry.json");
  std::ofstream(cache_ / k / "entry.json") << list.substr(0, list.size() / 2);
  EXPECT_EQ(restore_packages(cache_, k, project_ / "dbt_packages")->why, "entry.json is not a whole JSON document");
  fs::remove(cache_ / k / "entry.json");
  EXPECT_EQ(restore_packages(cache_, k, project_ / "dbt_packages")->why, "entry.json is missing or unreadable");
  EXPECT_FALSE(fs::exists(project_ / "dbt_packages"));
}

TEST_F(PackagesCacheTest, ASecondSaveOfTheSameKeyKeepsTheWholeEntry) {
  const std::string k = key();
  ASSERT_EQ(save_packages(cache_, k, project_ / "dbt_packages")->outcome, SaveOutcome::saved);
  const auto list = text_of(cache_ / k / "entry.json");
  auto again = save_packages(cache_, k, project_ / "dbt_packages");  // the pod that lost the race
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->outcome, SaveOutcome::already_saved);
  EXPECT_EQ(text_of(cache_ / k / "entry.json"), list);
  std::size_t folders = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(cache_)) ++folders;
  EXPECT_EQ(folders, 1u);
}

TEST_F(PackagesCacheTest, AListNamingAPathOutsideTheEntryIsDamage) {
  const std::string k = key();
  ASSERT_TRUE(save_packages(cache_, k, project_ / "dbt_packages"));
  std::string list = text_of(cache_ / k / "entry.json");
  const std::string from = "\"dbt_utils/macros/star.sql\"";
  ASSERT_NE(list.find(from), std::string::npos) << list;
  list.replace(list.find(from), from.size(), "\"../../outside.sql\"");
  std::ofstream(cache_ / k / "entry.json") << list;
  remove_installed();
  EXPECT_EQ(restore_packages(cache_, k, project_ / "dbt_packages")->why,
            "entry.json lists a file it does not describe");
  EXPECT_FALSE(fs::exists(dir_.path() / "outside.sql"));
}

TEST_F(PackagesCacheTest, PackagesHoldingALinkAreNotCached) {
  fs::create_directories(project_ / "helpers");
  fs::create_directory_symlink(project_ / "helpers", project_ / "dbt_packages" / "helpers");
  auto saved = save_packages(cache_, key(), project_ / "dbt_packages");
  ASSERT_TRUE(saved) << saved.error().message;
  EXPECT_EQ(saved->outcome, SaveOutcome::not_cacheable);
  EXPECT_EQ(saved->why, "dbt_packages/helpers is a link (a local package: its files live in the project)");
  EXPECT_TRUE(fs::is_empty(cache_));
}

}  // namespace
}  // namespace ods::cli
