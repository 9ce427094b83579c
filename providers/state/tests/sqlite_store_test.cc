// The SQLite store beyond the conformance suite: files, schema, damage, backups, locking.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <functional>

#include "ods/state/stores.h"
#include "test_support.h"

namespace ods::state {
namespace {

using testing::kFixedNow;
using testing::list_dir;
using testing::raw_exec;
using testing::raw_query;
using testing::read_bytes;
using testing::write_bytes;

using testing::fixed_clock;

// A clock that says kFixedNow after running `on_read`, each time it is read.
class IntrudingClock final : public Clock {
 public:
  explicit IntrudingClock(std::function<void()> on_read) : on_read_(std::move(on_read)) {}
  TimePoint now() const override {
    on_read_();
    return testing::fixed_now();
  }

 private:
  std::function<void()> on_read_;
};

// While it lives, permissions stop this process: as root (whom they don't stop) the effective
// user and group are nobody's (65534); anyone else stays who they are.
class Unprivileged {
 public:
  Unprivileged() {
    if (::geteuid() != 0) return;
    root_ = ::setegid(65534) == 0 && ::seteuid(65534) == 0;
    EXPECT_TRUE(root_) << "could not become nobody";
  }
  ~Unprivileged() {
    if (root_) {
      EXPECT_TRUE(::seteuid(0) == 0 && ::setegid(0) == 0);
    }
  }
  Unprivileged(const Unprivileged&) = delete;
  Unprivileged& operator=(const Unprivileged&) = delete;

 private:
  bool root_ = false;
};

// `path` and every folder above it up to the temp dir's parent traversable by anyone.
void let_anyone_in(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  for (fs::path p = dir; !p.empty() && p != p.root_path(); p = p.parent_path()) {
    std::error_code ignored;
    fs::permissions(p, fs::perms::others_exec | fs::perms::group_exec, fs::perm_options::add, ignored);
    if (p.filename() == "ods-tests") break;
  }
}

class SqliteStoreTest : public ::testing::Test {
 protected:
  std::unique_ptr<ods::contracts::StateStore> open(OpenOptions options = {}) {
    auto store = open_sqlite_store(path_, fixed_clock(), std::move(options));
    EXPECT_TRUE(store.has_value()) << store.error().code << ": " << store.error().message;
    return store ? std::move(*store) : nullptr;
  }

  // Opening must fail with `code`, naming the file, and leave the directory as it was.
  void expect_refused_untouched(const std::string& code) {
    const std::string before = read_bytes(path_);
    const auto listing = list_dir(dir_.path() / ".ods");
    auto store = open_sqlite_store(path_, fixed_clock());
    ASSERT_FALSE(store.has_value());
    EXPECT_EQ(store.error().code, code) << store.error().message;
    EXPECT_NE(store.error().message.find(path_), std::string::npos) << store.error().message;
    EXPECT_EQ(read_bytes(path_), before) << "the file must be left byte for byte";
    EXPECT_EQ(list_dir(dir_.path() / ".ods"), listing) << "no journal, WAL or copy may be left behind";
  }

  // Commits a chain of `count` small documents to `scope`; returns the ids oldest first.
  std::vector<std::string> commit_chain(ods::contracts::StateStore& store, const std::string& scope, int count) {
    std::vector<std::string> ids;
    std::optional<std::string> parent;
    for (int n = 0; n < count; ++n) {
      auto committed = store.commit(scope, parent, "run-" + std::to_string(n), R"({"n":)" + std::to_string(n) + "}");
      EXPECT_TRUE(committed.has_value());
      if (!committed) break;
      parent = committed->id;
      ids.push_back(committed->id);
    }
    return ids;
  }

  testing::TempDir dir_;
  std::string path_ = dir_.file(".ods/state.db");
};

TEST_F(SqliteStoreTest, CreatesDirectoriesAndRecordsMigrations) {
  auto store = open();
  ASSERT_NE(store, nullptr);
  EXPECT_TRUE(std::filesystem::is_regular_file(path_));
  EXPECT_EQ(raw_query(path_,
                      "SELECT group_concat(version || ' ' || name || ' ' || applied_at, ';') FROM "
                      "(SELECT * FROM schema_migrations ORDER BY version)"),
            std::string("1 initial_schema ") + kFixedNow);
  auto report = store->check();
  ASSERT_TRUE(report.has_value());
  EXPECT_EQ(report->schema_version, "1");
}

TEST_F(SqliteStoreTest, UsesWriteAheadLogging) {
  auto store = open();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(raw_query(path_, "PRAGMA journal_mode"), "wal");
}

TEST_F(SqliteStoreTest, ReopeningKeepsEverythingAndMakesNoCopy) {
  std::vector<std::string> ids;
  {
    auto store = open();
    ASSERT_NE(store, nullptr);
    ids = commit_chain(*store, "p/prod", 3);
    ASSERT_TRUE(store->append_run({"run-2", "p/prod", "a", "b", "success", "d", "{}", "{}", ids.back()}));
  }
  auto store = open();
  ASSERT_NE(store, nullptr);
  auto latest = store->latest("p/prod");
  ASSERT_TRUE(latest.has_value() && latest->has_value());
  EXPECT_EQ((*latest)->id, ids.back());
  EXPECT_EQ((*latest)->document, R"({"n":2})");
  auto runs = store->runs("p/prod", 0);
  ASSERT_TRUE(runs.has_value());
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ(runs->front().snapshot_id, ids.back());
  for (const std::string& name : list_dir(dir_.path() / ".ods")) {
    EXPECT_EQ(name.find(".bak"), std::string::npos) << name;
  }
}

TEST_F(SqliteStoreTest, MissingFileIsNotFoundWhenCreationIsOff) {
  OpenOptions options;
  options.create_if_missing = false;
  auto store = open_sqlite_store(path_, fixed_clock(), options);
  ASSERT_FALSE(store.has_value());
  EXPECT_EQ(store.error().code, "not_found");
  EXPECT_NE(store.error().message.find(path_), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / ".ods")) << "not even the directory is created";
}

TEST_F(SqliteStoreTest, NewerSchemaIsRefusedAndLeftUntouched) {
  {
    auto store = open();
    ASSERT_NE(store, nullptr);
    commit_chain(*store, "p/prod", 1);
  }
  raw_exec(path_, "INSERT INTO schema_migrations VALUES (2, 'from_the_future', '2030-01-01T00:00:00.000000Z')");
  expect_refused_untouched("newer_schema");
}

TEST_F(SqliteStoreTest, GarbageFileIsCorruptAndLeftUntouched) {
  std::filesystem::create_directories(dir_.path() / ".ods");
  std::string garbage;
  for (int i = 0; i < 300; ++i) garbage += "this is not a database, it is a text file\n";
  write_bytes(path_, garbage);
  expect_refused_untouched("corrupt");
}

TEST_F(SqliteStoreTest, ForeignSqliteDatabaseIsRefusedUntouched) {
  std::filesystem::create_directories(dir_.path() / ".ods");
  raw_exec(path_, "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers VALUES (1, 'a')");
  expect_refused_untouched("corrupt");
}

TEST_F(SqliteStoreTest, DroppedTableIsCorruptAtOpen) {
  { ASSERT_NE(open(), nullptr); }
  raw_exec(path_, "DROP TABLE runs");
  expect_refused_untouched("corrupt");
}

TEST_F(SqliteStoreTest, CheckFindsADocumentThatIsNotJson) {
  auto store = open();
  ASSERT_NE(store, nullptr);
  commit_chain(*store, "p/prod", 2);
  raw_exec(path_, R"(UPDATE documents SET body = '{"n":' WHERE body = '{"n":1}')");
  auto report = store->check();
  ASSERT_TRUE(report.has_value()) << report.error().message;
  EXPECT_FALSE(report->ok);
  ASSERT_EQ(report->problems.size(), 1u);
  EXPECT_NE(report->problems[0].find("not valid JSON"), std::string::npos) << report->problems[0];
}

TEST_F(SqliteStoreTest, CheckFindsAnEditedDocument) {
  auto store = open();
  ASSERT_NE(store, nullptr);
  commit_chain(*store, "p/prod", 1);
  raw_exec(path_, R"(UPDATE documents SET body = '{"n":42}')");
  auto report = store->check();
  ASSERT_TRUE(report.has_value());
  EXPECT_FALSE(report->ok);
  ASSERT_EQ(report->problems.size(), 1u);
  EXPECT_NE(report->problems[0].find("digest"), std::string::npos) << report->problems[0];
}

TEST_F(SqliteStoreTest, CheckFindsABrokenParentChain) {
  auto store = open();
  ASSERT_NE(store, nullptr);
  const auto ids = commit_chain(*store, "p/prod", 3);
  ASSERT_EQ(ids.size(), 3u);
  raw_exec(path_, "DELETE FROM snapshots WHERE id = '" + ids[1] + "'");  // foreign keys are off here
  auto report = store->check();
  ASSERT_TRUE(report.has_value());
  EXPECT_FALSE(report->ok);
  bool chain_problem = false;
  for (const std::string& problem : report->problems) {
    if (problem.find("chain is broken") != std::string::npos && problem.find(ids[1]) != std::string::npos) {
      chain_problem = true;
    }
  }
  EXPECT_TRUE(chain_problem) << ::testing::PrintToString(report->problems);
}

TEST_F(SqliteStoreTest, DanglingHeadIsCorrupt) {
  auto store = open();
  ASSERT_NE(store, nullptr);
  commit_chain(*store, "p/prod", 1);
  raw_exec(path_, "UPDATE heads SET snapshot_id = 'gone' WHERE scope = 'p/prod'");
  auto latest = store->latest("p/prod");
  ASSERT_FALSE(latest.has_value());
  EXPECT_EQ(latest.error().code, "corrupt");
  EXPECT_NE(latest.error().message.find("gone"), std::string::npos) << latest.error().message;
  auto report = store->check();
  ASSERT_TRUE(report.has_value());
  EXPECT_FALSE(report->ok);
}

TEST_F(SqliteStoreTest, DamagedPagesAreReportedNotGuessed) {
  {
    auto store = open();
    ASSERT_NE(store, nullptr);
    std::optional<std::string> parent;
    for (int n = 0; n < 40; ++n) {
      auto committed = store->commit("p/prod", parent, "run-" + std::to_string(n),
                                     R"({"pad":")" + std::string(2000, static_cast<char>('a' + n % 26)) + "\"}");
      ASSERT_TRUE(committed.has_value());
      parent = committed->id;
    }
  }
  std::string bytes = read_bytes(path_);
  ASSERT_GT(bytes.size(), 8u * 4096u);
  for (std::size_t i = 4096 * 3; i < 4096 * 5; ++i) bytes[i] = static_cast<char>(0xA5);
  write_bytes(path_, bytes);
  auto store = open_sqlite_store(path_, fixed_clock());
  if (!store) {
    EXPECT_EQ(store.error().code, "corrupt") << store.error().message;
    EXPECT_EQ(read_bytes(path_), bytes);
    return;
  }
  auto report = (*store)->check();
  ASSERT_TRUE(report.has_value()) << report.error().message;
  EXPECT_FALSE(report->ok);
  EXPECT_FALSE(report->problems.empty());
}

TEST_F(SqliteStoreTest, BackupIsAReadableStore) {
  auto store = open();
  ASSERT_NE(store, nullptr);
  const auto ids = commit_chain(*store, "p/prod", 3);
  commit_chain(*store, "p/dev", 1);
  ASSERT_TRUE(store->append_run({"run-2", "p/prod", "a", "b", "success", "d", "{}", "{}", ids.back()}));
  const std::string copy = dir_.file("backups/copy.db");
  auto backup = store->backup(copy);
  ASSERT_TRUE(backup.has_value()) << backup.error().message;

  auto restored = open_sqlite_store(copy, fixed_clock());
  ASSERT_TRUE(restored.has_value()) << restored.error().message;
  auto history = (*restored)->history("p/prod", 0);
  ASSERT_TRUE(history.has_value());
  ASSERT_EQ(history->size(), 3u);
  EXPECT_EQ(history->front().id, ids.back());
  auto runs = (*restored)->runs("p/prod", 0);
  ASSERT_TRUE(runs.has_value());
  EXPECT_EQ(runs->size(), 1u);
  auto report = (*restored)->check();
  ASSERT_TRUE(report.has_value());
  EXPECT_TRUE(report->ok);
  for (const std::string& name : list_dir(dir_.path() / "backups")) {
    EXPECT_EQ(name.find(".bak"), std::string::npos) << "a same-version backup needs no migration copy";
  }
}

TEST_F(SqliteStoreTest, BackupNeverOverwritesAFileWithContent) {
  auto store = open();
  ASSERT_NE(store, nullptr);
  commit_chain(*store, "p/prod", 1);
  const std::string taken = dir_.file("taken.db");
  write_bytes(taken, "someone's data");
  auto refused = store->backup(taken);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code, "io");
  EXPECT_EQ(read_bytes(taken), "someone's data");

  const std::string empty = dir_.file("empty.db");
  write_bytes(empty, "");
  auto written = store->backup(empty);
  ASSERT_TRUE(written.has_value()) << written.error().message;
  auto restored = open_sqlite_store(empty, fixed_clock());
  ASSERT_TRUE(restored.has_value());
  auto latest = (*restored)->latest("p/prod");
  ASSERT_TRUE(latest.has_value() && latest->has_value());
}

TEST_F(SqliteStoreTest, IdenticalDocumentsAreStoredOnce) {
  auto store = open();
  ASSERT_NE(store, nullptr);
  auto first = store->commit("p/prod", std::nullopt, "run-1", R"({"same":true})");
  ASSERT_TRUE(first.has_value());
  ASSERT_TRUE(store->commit("p/prod", first->id, "run-2", R"({"same":true})"));
  ASSERT_TRUE(store->commit("p/dev", std::nullopt, "run-3", R"({"same":true})"));
  EXPECT_EQ(raw_query(path_, "SELECT count(*) FROM snapshots"), "3");
  EXPECT_EQ(raw_query(path_, "SELECT count(*) FROM documents"), "1");
  ASSERT_TRUE(store->reset("p/prod"));
  EXPECT_EQ(raw_query(path_, "SELECT count(*) FROM documents"), "1") << "p/dev still uses it";
  ASSERT_TRUE(store->reset("p/dev"));
  EXPECT_EQ(raw_query(path_, "SELECT count(*) FROM documents"), "0") << "unused documents go with their scope";
}

TEST_F(SqliteStoreTest, WriterGivesUpWhenAnotherHoldsTheLock) {
  OpenOptions options;
  options.busy_timeout = std::chrono::milliseconds(100);
  auto store = open(options);
  ASSERT_NE(store, nullptr);
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  auto blocked = store->commit("p/prod", std::nullopt, "run-1", "{}");
  ASSERT_FALSE(blocked.has_value());
  EXPECT_EQ(blocked.error().code, "unavailable") << blocked.error().message;
  auto read = store->latest("p/prod");
  EXPECT_TRUE(read.has_value()) << "readers are not blocked by a writer (WAL)";
  sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(other);
  auto committed = store->commit("p/prod", std::nullopt, "run-1", "{}");
  EXPECT_TRUE(committed.has_value()) << "nothing of the failed attempt was kept";
}

TEST_F(SqliteStoreTest, CommitHoldsTheWriteLockFromReadingTheHeadToTheEnd) {
  // The store's clock runs inside commit, after the head was read: use it to let another
  // connection try to commit at exactly that moment. It must be kept out (the head read
  // and the write are one BEGIN IMMEDIATE transaction), and the scope stays one chain.
  OpenOptions quick;
  quick.busy_timeout = std::chrono::milliseconds(50);
  auto other = open_sqlite_store(path_, fixed_clock(), quick);
  ASSERT_TRUE(other.has_value());
  std::optional<ods::Error> intruder_error;
  bool armed = true;
  const IntrudingClock clock([&] {
    if (armed) {
      armed = false;
      auto intruder = (*other)->commit("p/prod", std::nullopt, "run-intruder", "{}");
      if (!intruder) intruder_error = intruder.error();
    }
  });
  auto store = open_sqlite_store(path_, clock);
  ASSERT_TRUE(store.has_value());
  armed = true;  // opening used the clock for the migration record
  auto committed = (*store)->commit("p/prod", std::nullopt, "run-1", "{}");
  ASSERT_TRUE(committed.has_value()) << committed.error().code << ": " << committed.error().message;
  ASSERT_TRUE(intruder_error.has_value()) << "the other connection got in during the commit";
  EXPECT_EQ(intruder_error->code, "unavailable");
  auto history = (*other)->history("p/prod", 0);
  ASSERT_TRUE(history.has_value());
  ASSERT_EQ(history->size(), 1u);
  EXPECT_EQ(history->front().run_id, "run-1");
}

TEST_F(SqliteStoreTest, CheckWritableAcceptsAStoreThatRecordsAndWritesNothing) {
  auto store = open();
  ASSERT_NE(store, nullptr);
  commit_chain(*store, "shop/dev", 2);
  const auto listing = list_dir(dir_.path() / ".ods");
  auto writable = store->check_writable();
  EXPECT_TRUE(writable.has_value()) << writable.error().message;
  EXPECT_EQ(raw_query(path_, "SELECT count(*) FROM snapshots"), "2");
  EXPECT_EQ(list_dir(dir_.path() / ".ods"), listing);
}

TEST_F(SqliteStoreTest, CheckWritableRefusesAStoreOpenedReadOnly) {
  ASSERT_NE(open(), nullptr);
  OpenOptions read_only;
  read_only.read_only = true;
  auto store = open(read_only);
  ASSERT_NE(store, nullptr);
  auto writable = store->check_writable();
  ASSERT_FALSE(writable.has_value());
  EXPECT_EQ(writable.error().code, "permission_denied");
  EXPECT_NE(writable.error().message.find(path_), std::string::npos) << writable.error().message;
}

// The file SQLite opens read-write when it can quietly opens read-only when it can't: the store
// opens, and only a commit would fail. check_writable says so before.
TEST_F(SqliteStoreTest, CheckWritableFindsAFileThisUserCannotWrite) {
  {
    auto store = open();
    ASSERT_NE(store, nullptr);
    commit_chain(*store, "shop/dev", 1);
  }
  let_anyone_in(dir_.path() / ".ods");
  std::filesystem::permissions(dir_.path() / ".ods", std::filesystem::perms::all);  // the folder stays writable
  std::filesystem::permissions(path_, std::filesystem::perms::owner_read | std::filesystem::perms::group_read |
                                          std::filesystem::perms::others_read);
  const std::string before = read_bytes(path_);
  {
    Unprivileged nobody;
    auto store = open_sqlite_store(path_, fixed_clock());
    ASSERT_TRUE(store.has_value()) << store.error().message;
    auto writable = (*store)->check_writable();
    ASSERT_FALSE(writable.has_value()) << "a read-only file passed";
    EXPECT_EQ(writable.error().code, "permission_denied");
    EXPECT_NE(writable.error().message.find(path_), std::string::npos) << writable.error().message;
    EXPECT_NE(writable.error().message.find("read-only for this user"), std::string::npos) << writable.error().message;
  }
  EXPECT_EQ(read_bytes(path_), before);
}

// A plan, history or doctor opens the store read-only: that works on a file in a folder this
// user can't write either, where SQLite can't create the -shm a WAL database is read with.
TEST_F(SqliteStoreTest, ReadOnlyOpenReadsAFileInAFolderThisUserCannotWrite) {
  {
    auto store = open();
    ASSERT_NE(store, nullptr);
    commit_chain(*store, "shop/dev", 2);
  }
  const auto folder = dir_.path() / ".ods";
  let_anyone_in(folder);
  namespace fs = std::filesystem;
  const auto read_and_enter = fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                              fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec;
  fs::permissions(path_, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  fs::permissions(folder, read_and_enter);
  const std::string before = read_bytes(path_);
  const auto listing = list_dir(folder);
  {
    Unprivileged nobody;
    OpenOptions read_only;
    read_only.read_only = true;
    auto store = open_sqlite_store(path_, fixed_clock(), read_only);
    ASSERT_TRUE(store.has_value()) << store.error().code << ": " << store.error().message;
    auto history = (*store)->history("shop/dev", 0);
    ASSERT_TRUE(history.has_value()) << history.error().message;
    EXPECT_EQ(history->size(), 2u);
    auto report = (*store)->check();
    ASSERT_TRUE(report.has_value()) << report.error().message;
    EXPECT_TRUE(report->ok);
  }
  fs::permissions(folder, fs::perms::owner_all, fs::perm_options::add);
  EXPECT_EQ(read_bytes(path_), before);
  EXPECT_EQ(list_dir(folder), listing);
}

}  // namespace
}  // namespace ods::state
