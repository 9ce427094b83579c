// What the PostgreSQL store keeps: a run that changed nothing stores no node again, one
// changed node stores one piece; retention bounds history and removes what only old
// snapshots used; backup writes a SQLite database with the same snapshots and ledger.
#include <gtest/gtest.h>

#include <filesystem>

#include "ods/state/stores.h"
#include "pg_fixture.h"

namespace ods::testing {
namespace {

std::string db_name(const std::string& dsn) { return dsn.substr(dsn.find("dbname=") + 7); }

long long count(const std::string& dsn, const std::string& table) {
  ProcessResult rows = shared_postgres()->psql("SELECT count(*) FROM " + table, db_name(dsn));
  EXPECT_EQ(rows.exit_code, 0) << rows.errors;
  return std::atoll(rows.output.c_str());
}

ods::contracts::RunRecord run_of(const std::string& run_id, const std::string& plan) {
  return {run_id, "shop/prod", "2026-11-29T00:00:00Z", "2026-11-29T00:01:00Z", "success", "sha256:in", plan,
          "{}",   std::nullopt};
}

std::string plan_of(int entries) {
  std::string plan = R"({"entries":[)";
  for (int i = 0; i < entries; ++i) {
    plan += (i ? "," : "") + std::string(R"({"action":"reuse","id":"model.bench.node_)") + std::to_string(i) + "\"}";
  }
  return plan + "]}";
}

TEST(PostgresStorage, UnchangedNodesAreStoredOnce) {
  const std::string dsn = fresh_database();
  auto store = open_pg(dsn);
  ASSERT_NE(store, nullptr);
  const std::string first = node_document(100, "run-1");
  auto one = store->commit("shop/prod", std::nullopt, "run-1", first);
  ASSERT_TRUE(one.has_value()) << one.error().message;
  EXPECT_EQ(count(dsn, "pieces"), 100);
  const long long chunks = count(dsn, "chunks");
  EXPECT_GT(chunks, 1);

  auto two = store->commit("shop/prod", one->id, "run-2", node_document(100, "run-2"));
  ASSERT_TRUE(two.has_value()) << two.error().message;
  EXPECT_EQ(count(dsn, "pieces"), 100) << "a run that changed nothing stores no node again";
  EXPECT_EQ(count(dsn, "chunks"), chunks);
  EXPECT_EQ(count(dsn, "manifests"), 1);
  EXPECT_EQ(count(dsn, "documents"), 2);

  auto three = store->commit("shop/prod", two->id, "run-3", node_document(100, "run-3", 99, "-changed"));
  ASSERT_TRUE(three.has_value()) << three.error().message;
  EXPECT_EQ(count(dsn, "pieces"), 101) << "one changed node, one new piece";
  EXPECT_EQ(count(dsn, "manifests"), 2);

  auto history = store->history("shop/prod", 0);
  ASSERT_TRUE(history.has_value());
  ASSERT_EQ(history->size(), 3u);
  EXPECT_EQ((*history)[2].document, first) << "documents come back byte for byte";
  EXPECT_EQ((*history)[0].document, node_document(100, "run-3", 99, "-changed"));

  for (int n = 1; n <= 3; ++n) ASSERT_TRUE(store->append_run(run_of("run-" + std::to_string(n), plan_of(50))));
  EXPECT_EQ(count(dsn, "pieces"), 151) << "a repeated plan is stored once";
  auto runs = store->runs("shop/prod", 0);
  ASSERT_TRUE(runs.has_value());
  ASSERT_EQ(runs->size(), 3u);
  EXPECT_EQ((*runs)[0].plan, plan_of(50));
}

TEST(PostgresStorage, RetentionKeepsTheNewestAndRemovesWhatOnlyOldOnesUsed) {
  const std::string dsn = fresh_database();
  ods::state::OpenOptions options;
  options.retention = 3;
  auto store = open_pg(dsn, options);
  ASSERT_NE(store, nullptr);
  std::optional<std::string> parent;
  for (int n = 1; n <= 6; ++n) {
    const std::string run = "run-" + std::to_string(n);
    auto committed = store->commit("shop/prod", parent, run, node_document(20, run, 10, "-v" + std::to_string(n)));
    ASSERT_TRUE(committed.has_value()) << committed.error().message;
    parent = committed->id;
    ASSERT_TRUE(store->append_run(run_of(run, plan_of(10 + n))));
  }
  auto history = store->history("shop/prod", 0);
  ASSERT_TRUE(history.has_value());
  ASSERT_EQ(history->size(), 3u);
  EXPECT_EQ(history->front().run_id, "run-6");
  EXPECT_EQ(history->back().run_id, "run-4");
  EXPECT_EQ(history->back().parent, std::nullopt) << "history now starts at the oldest kept snapshot";
  auto runs = store->runs("shop/prod", 0);
  ASSERT_TRUE(runs.has_value());
  ASSERT_EQ(runs->size(), 3u);
  EXPECT_EQ(runs->back().run_id, "run-4");
  // 10 unchanged nodes + 10 changed ones in each of 3 snapshots; plan entries 0..15.
  EXPECT_EQ(count(dsn, "pieces"), 10 + 3 * 10 + 16);
  EXPECT_EQ(count(dsn, "documents"), 6);
  auto report = store->check();
  ASSERT_TRUE(report.has_value());
  EXPECT_TRUE(report->ok) << (report->problems.empty() ? "" : report->problems.front());
}

TEST(PostgresStorage, BackupWritesASqliteDatabaseWithTheSameStateAndNeverOverwrites) {
  const std::string dsn = fresh_database();
  auto store = open_pg(dsn);
  ASSERT_NE(store, nullptr);
  std::optional<std::string> parent;
  for (int n = 1; n <= 3; ++n) {
    const std::string run = "run-" + std::to_string(n);
    auto committed = store->commit("shop/prod", parent, run, node_document(30, run, 25, run));
    ASSERT_TRUE(committed.has_value());
    parent = committed->id;
    ASSERT_TRUE(store->append_run(run_of(run, plan_of(12))));
  }
  ASSERT_TRUE(store->commit("shop/dev", std::nullopt, "dev-1", R"({"n":1})"));
  const auto dir = std::filesystem::temp_directory_path() / ("ods-pg-backup-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const std::string path = (dir / "state.db").string();
  auto written = store->backup(path);
  ASSERT_TRUE(written.has_value()) << written.error().message;

  auto copy = ods::state::open_sqlite_store(path);
  ASSERT_TRUE(copy.has_value()) << copy.error().message;
  for (const std::string scope : {"shop/prod", "shop/dev"}) {
    auto original = store->history(scope, 0);
    auto copied = (*copy)->history(scope, 0);
    ASSERT_TRUE(original.has_value() && copied.has_value());
    ASSERT_EQ(copied->size(), original->size());
    for (std::size_t i = 0; i < copied->size(); ++i) {
      EXPECT_EQ((*copied)[i].id, (*original)[i].id);
      EXPECT_EQ((*copied)[i].parent, (*original)[i].parent);
      EXPECT_EQ((*copied)[i].committed_at, (*original)[i].committed_at);
      EXPECT_EQ((*copied)[i].document, (*original)[i].document);
    }
  }
  auto copied_runs = (*copy)->runs("shop/prod", 0);
  ASSERT_TRUE(copied_runs.has_value());
  ASSERT_EQ(copied_runs->size(), 3u);
  EXPECT_EQ(copied_runs->front().plan, plan_of(12));
  auto report = (*copy)->check();
  ASSERT_TRUE(report.has_value());
  EXPECT_TRUE(report->ok);

  auto again = store->backup(path);
  ASSERT_FALSE(again.has_value());
  EXPECT_EQ(again.error().code, "io");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ods::testing
