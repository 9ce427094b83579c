// Migrating the SQLite state database, with injected migration lists standing in for the
// versions a future ODS will add.
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "sqlite_store.h"
#include "test_support.h"

namespace ods::state {
namespace {

using internal::builtin_migrations;
using internal::Migration;
using internal::open_sqlite_store_with;
using testing::kFixedNow;
using testing::list_dir;
using testing::raw_exec;
using testing::raw_query;
using testing::read_bytes;
using testing::write_bytes;

using testing::fixed_clock;

std::vector<Migration> with_extra(Migration extra) {
  std::vector<Migration> migrations = builtin_migrations();
  migrations.push_back(std::move(extra));
  return migrations;
}

const Migration kAddNotes{2, "add_notes", "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL);"};

class SqliteMigrationTest : public ::testing::Test {
 protected:
  // A version-1 database holding one snapshot; returns its id.
  std::string make_v1_with_data() {
    auto store = open_sqlite_store(path_, fixed_clock());
    EXPECT_TRUE(store.has_value());
    auto committed = (*store)->commit("p/prod", std::nullopt, "run-1", R"({"v":1})");
    EXPECT_TRUE(committed.has_value());
    return committed ? committed->id : "";
  }

  std::vector<std::string> backups() const {
    std::vector<std::string> found;
    for (const std::string& name : list_dir(dir_.path())) {
      if (name.find(".bak") != std::string::npos) found.push_back(name);
    }
    return found;
  }

  testing::TempDir dir_;
  std::string path_ = dir_.file("state.db");
};

TEST_F(SqliteMigrationTest, KeepsACopyBeforeMigratingADatabaseWithData) {
  const std::string id = make_v1_with_data();
  std::vector<std::string> notices;
  OpenOptions options;
  options.on_notice = [&](const std::string& notice) { notices.push_back(notice); };
  auto store = open_sqlite_store_with(path_, fixed_clock(), options, with_extra(kAddNotes));
  ASSERT_TRUE(store.has_value()) << store.error().message;

  EXPECT_EQ(raw_query(path_, "SELECT group_concat(version) FROM schema_migrations"), "1,2");
  EXPECT_EQ(raw_query(path_, "SELECT count(*) FROM notes"), "0");
  auto latest = (*store)->latest("p/prod");
  ASSERT_TRUE(latest.has_value() && latest->has_value());
  EXPECT_EQ((*latest)->id, id);

  const std::string copy = path_ + ".bak-v1";
  ASSERT_TRUE(std::filesystem::exists(copy));
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_NE(notices[0].find(copy), std::string::npos) << notices[0];
  EXPECT_EQ(raw_query(copy, "SELECT max(version) FROM schema_migrations"), "1");
  auto old = open_sqlite_store(copy, fixed_clock());
  ASSERT_TRUE(old.has_value()) << old.error().message;
  auto old_latest = (*old)->latest("p/prod");
  ASSERT_TRUE(old_latest.has_value() && old_latest->has_value());
  EXPECT_EQ((*old_latest)->document, R"({"v":1})");
}

TEST_F(SqliteMigrationTest, NewDatabaseNeedsNoCopy) {
  std::vector<std::string> notices;
  OpenOptions options;
  options.on_notice = [&](const std::string& notice) { notices.push_back(notice); };
  auto store = open_sqlite_store_with(path_, fixed_clock(), options, with_extra(kAddNotes));
  ASSERT_TRUE(store.has_value()) << store.error().message;
  EXPECT_EQ(raw_query(path_, "SELECT group_concat(version) FROM schema_migrations"), "1,2");
  EXPECT_TRUE(notices.empty());
  EXPECT_TRUE(backups().empty());
}

TEST_F(SqliteMigrationTest, AnExistingCopyIsNeverOverwritten) {
  make_v1_with_data();
  write_bytes(path_ + ".bak-v1", "an older copy");
  std::vector<std::string> notices;
  OpenOptions options;
  options.on_notice = [&](const std::string& notice) { notices.push_back(notice); };
  auto store = open_sqlite_store_with(path_, fixed_clock(), options, with_extra(kAddNotes));
  ASSERT_TRUE(store.has_value()) << store.error().message;
  EXPECT_EQ(read_bytes(path_ + ".bak-v1"), "an older copy");
  EXPECT_TRUE(std::filesystem::exists(path_ + ".bak-v1.1"));
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_NE(notices[0].find(".bak-v1.1"), std::string::npos) << notices[0];
}

TEST_F(SqliteMigrationTest, AFailedMigrationKeepsNothingOfIt) {
  const std::string id = make_v1_with_data();
  const Migration broken{2, "half_done", "CREATE TABLE half (a); INSERT INTO nowhere VALUES (1);"};
  auto store = open_sqlite_store_with(path_, fixed_clock(), {}, with_extra(broken));
  ASSERT_FALSE(store.has_value());
  EXPECT_EQ(store.error().code, "migration_failed");
  EXPECT_NE(store.error().message.find("half_done"), std::string::npos) << store.error().message;
  EXPECT_EQ(raw_query(path_, "SELECT count(*) FROM sqlite_master WHERE name = 'half'"), "0");
  EXPECT_EQ(raw_query(path_, "SELECT max(version) FROM schema_migrations"), "1");
  auto reopened = open_sqlite_store(path_, fixed_clock());
  ASSERT_TRUE(reopened.has_value()) << reopened.error().message;
  auto latest = (*reopened)->latest("p/prod");
  ASSERT_TRUE(latest.has_value() && latest->has_value());
  EXPECT_EQ((*latest)->id, id);
}

TEST_F(SqliteMigrationTest, ADatabaseFromANewerBinaryIsRefusedUntouched) {
  {
    auto store = open_sqlite_store_with(path_, fixed_clock(), {}, with_extra(kAddNotes));
    ASSERT_TRUE(store.has_value());
    ASSERT_TRUE((*store)->commit("p/prod", std::nullopt, "run-1", "{}"));
  }
  const std::string before = read_bytes(path_);
  const auto listing = list_dir(dir_.path());
  auto store = open_sqlite_store(path_, fixed_clock());
  ASSERT_FALSE(store.has_value());
  EXPECT_EQ(store.error().code, "newer_schema");
  EXPECT_NE(store.error().message.find("schema version 2"), std::string::npos) << store.error().message;
  EXPECT_EQ(read_bytes(path_), before);
  EXPECT_EQ(list_dir(dir_.path()), listing);
}

TEST_F(SqliteMigrationTest, AnUnknownMigrationHistoryIsRefused) {
  make_v1_with_data();
  raw_exec(path_, "UPDATE schema_migrations SET name = 'someone_elses_schema' WHERE version = 1");
  const std::string before = read_bytes(path_);
  auto store = open_sqlite_store(path_, fixed_clock());
  ASSERT_FALSE(store.has_value());
  EXPECT_EQ(store.error().code, "corrupt");
  EXPECT_NE(store.error().message.find("someone_elses_schema"), std::string::npos) << store.error().message;
  EXPECT_EQ(read_bytes(path_), before);
}

TEST_F(SqliteMigrationTest, ConcurrentOpenersMigrateOnce) {
  std::vector<std::thread> openers;
  std::vector<std::string> errors(4);
  for (std::size_t i = 0; i < errors.size(); ++i) {
    openers.emplace_back([&, i] {
      auto store = open_sqlite_store(path_, fixed_clock());
      if (!store) errors[i] = store.error().code + ": " + store.error().message;
    });
  }
  for (std::thread& opener : openers) opener.join();
  for (const std::string& error : errors) EXPECT_EQ(error, "");
  EXPECT_EQ(raw_query(path_, "SELECT count(*) FROM schema_migrations"), "1");
  EXPECT_TRUE(backups().empty());
}

// A read-only open (a plan, a dry run) reads and writes nothing: the bytes stay, no -wal or
// -shm file is left, no migration runs, writes are refused, a missing file stays missing.
TEST_F(SqliteMigrationTest, ReadOnlyOpenChangesNoByteAndRefusesWrites) {
  const std::string id = make_v1_with_data();
  const std::string before = read_bytes(path_);
  const auto files = list_dir(dir_.path());
  OpenOptions read_only;
  read_only.read_only = true;
  {
    auto store = open_sqlite_store(path_, fixed_clock(), read_only);
    ASSERT_TRUE(store.has_value()) << store.error().message;
    auto latest = (*store)->latest("p/prod");
    ASSERT_TRUE(latest.has_value() && latest->has_value());
    EXPECT_EQ((*latest)->id, id);
    EXPECT_TRUE((*store)->runs("p/prod", 50).has_value());
    EXPECT_FALSE((*store)->commit("p/prod", id, "run-2", R"({"v":2})").has_value());
    EXPECT_FALSE((*store)
                     ->append_run({"run-2", "p/prod", kFixedNow, kFixedNow, "success", "", "{}", "{}", std::nullopt})
                     .has_value());
  }
  EXPECT_EQ(read_bytes(path_), before);
  EXPECT_EQ(list_dir(dir_.path()), files);

  // Behind this ODS's migrations: refused, left as it is, no backup copy.
  auto behind = open_sqlite_store_with(path_, fixed_clock(), read_only, with_extra(kAddNotes));
  ASSERT_FALSE(behind.has_value());
  EXPECT_EQ(behind.error().code, "outdated_schema");
  EXPECT_EQ(read_bytes(path_), before);
  EXPECT_TRUE(backups().empty());

  const std::string missing = dir_.file("sub/none.db");
  OpenOptions create_but_read_only = read_only;
  create_but_read_only.create_if_missing = true;
  auto none = open_sqlite_store(missing, fixed_clock(), create_but_read_only);
  ASSERT_FALSE(none.has_value());
  EXPECT_EQ(none.error().code, "not_found");
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "sub"));
}

}  // namespace
}  // namespace ods::state
