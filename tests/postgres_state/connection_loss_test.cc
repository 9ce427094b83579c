// A connection lost in the middle of a commit: afterwards the head is the old snapshot or
// the new one, never a mix; the error is "unavailable", names the server and no password;
// the store reconnects for the next call.
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <atomic>
#include <chrono>
#include <future>
#include <iostream>
#include <set>
#include <thread>

#include "harness/eventually.h"
#include "ods/state/stores.h"
#include "pg_fixture.h"

namespace ods::testing {
namespace {

using namespace std::chrono_literals;

// A second session that holds the scope's head row locked, so a commit waits inside its
// transaction until the lock goes or its connection does.
class HeadLocker {
 public:
  explicit HeadLocker(const std::string& dsn) : connection_(PQconnectdb((dsn + " application_name=locker").c_str())) {}
  ~HeadLocker() { PQfinish(connection_); }
  bool lock(const std::string& scope) {
    return run("BEGIN") && run("SELECT snapshot_id FROM heads WHERE scope = '" + scope + "' FOR UPDATE");
  }
  // Lets the waiting commit go (when a test fails before it ends the lock otherwise).
  void unlock() { run("ROLLBACK"); }

 private:
  bool run(const std::string& sql) {
    PGresult* result = PQexec(connection_, sql.c_str());
    const bool ok = PQresultStatus(result) == PGRES_COMMAND_OK || PQresultStatus(result) == PGRES_TUPLES_OK;
    PQclear(result);
    return ok;
  }
  PGconn* connection_;
};

// Waits (up to 2 minutes) until a session of the store is waiting for a lock; returns its
// backend pid, "" when none did.
std::string waiting_backend(const std::string& dsn) {
  const std::string db = dsn.substr(dsn.find("dbname=") + 7);
  std::string pid;
  const bool waiting = eventually(
      120s,
      [&] {
        ProcessResult rows = shared_postgres()->psql(
            "SELECT pid FROM pg_stat_activity WHERE application_name = 'ods' AND wait_event_type = 'Lock'", db);
        if (rows.exit_code != 0 || rows.output.empty()) return false;
        pid = rows.output.substr(0, rows.output.find('\n'));
        return true;
      },
      50ms);
  return waiting ? pid : "";
}

ods::state::OpenOptions patient() {
  ods::state::OpenOptions options;
  options.busy_timeout = std::chrono::minutes(10);  // the lock wait must not end on its own
  return options;
}

void expect_clear_unavailable(const ods::Error& error, const std::string& what) {
  EXPECT_EQ(error.code, "unavailable") << what << ": " << error.message;
  EXPECT_NE(error.message.find("127.0.0.1:" + std::to_string(shared_postgres()->port())), std::string::npos)
      << what << ": the message names the server: " << error.message;
}

TEST(PostgresConnectionLoss, TerminatedMidCommitLeavesTheOldHeadAndReconnects) {
  const std::string dsn = fresh_database();
  auto store = open_pg(dsn, patient());
  ASSERT_NE(store, nullptr);
  const std::string old_document = node_document(50, "run-1");
  auto first = store->commit("shop/prod", std::nullopt, "run-1", old_document);
  ASSERT_TRUE(first.has_value());

  HeadLocker locker(dsn);
  ASSERT_TRUE(locker.lock("shop/prod"));
  auto pending = std::async(std::launch::async, [&] {
    return store->commit("shop/prod", first->id, "run-2", node_document(50, "run-2", 0, "-new"));
  });
  const std::string pid = waiting_backend(dsn);
  if (pid.empty()) locker.unlock();  // the commit goes through: the test fails, it does not hang
  ASSERT_FALSE(pid.empty()) << "the commit never waited for the head's lock";
  ASSERT_EQ(shared_postgres()->psql("SELECT pg_terminate_backend(" + pid + ")").exit_code, 0);
  auto committed = pending.get();
  ASSERT_FALSE(committed.has_value());
  expect_clear_unavailable(committed.error(), "terminated");
  std::cout << "reported: " << committed.error().message << "\n";

  auto head = store->latest("shop/prod");
  ASSERT_TRUE(head.has_value()) << "reconnects: " << head.error().message;
  ASSERT_TRUE(head->has_value());
  EXPECT_EQ((*head)->id, first->id);
  EXPECT_EQ((*head)->document, old_document);
}

TEST(PostgresConnectionLoss, ServerRestartMidCommitLeavesTheOldHeadAndReconnects) {
  const std::string dsn = fresh_database();
  auto store = open_pg(dsn, patient());
  ASSERT_NE(store, nullptr);
  const std::string old_document = node_document(50, "run-1");
  auto first = store->commit("shop/prod", std::nullopt, "run-1", old_document);
  ASSERT_TRUE(first.has_value());
  auto pending = std::async(std::launch::async, [&] {
    HeadLocker locker(dsn);
    EXPECT_TRUE(locker.lock("shop/prod"));
    auto inner = std::async(std::launch::async, [&] {
      return store->commit("shop/prod", first->id, "run-2", node_document(50, "run-2", 0, "-new"));
    });
    if (waiting_backend(dsn).empty()) {
      ADD_FAILURE() << "the commit never waited for the head's lock";
      locker.unlock();
    }
    auto restarted = shared_postgres()->restart();
    EXPECT_TRUE(restarted.has_value()) << restarted.error();
    return inner.get();
  });
  auto committed = pending.get();
  ASSERT_FALSE(committed.has_value());
  expect_clear_unavailable(committed.error(), "restarted");

  auto head = store->latest("shop/prod");
  ASSERT_TRUE(head.has_value()) << head.error().message;
  ASSERT_TRUE(head->has_value());
  EXPECT_EQ((*head)->document, old_document);
  auto next = store->commit("shop/prod", first->id, "run-3", node_document(50, "run-3", 0, "-3"));
  ASSERT_TRUE(next.has_value()) << next.error().message;
}

// Commits of large documents back to back while the server restarts under them: each is
// success or "unavailable", and the head is always exactly one of the documents committed.
TEST(PostgresConnectionLoss, RestartUnderBusyCommitsNeverLeavesAMix) {
  const std::string dsn = fresh_database();
  auto store = open_pg(dsn);
  ASSERT_NE(store, nullptr);
  std::atomic<int> landed{0};
  std::atomic<bool> stop{false};
  std::set<std::string> attempted;
  std::vector<ods::Error> errors;
  std::thread committer([&] {
    for (int n = 0; !stop; ++n) {
      auto head = store->latest("shop/prod");
      if (!head) {
        errors.push_back(head.error());
        std::this_thread::sleep_for(20ms);
        continue;
      }
      std::optional<std::string> parent;
      if (*head) parent = (**head).id;
      const std::string document = node_document(2000, "run-" + std::to_string(n), n % 2000, std::to_string(n));
      attempted.insert(document);
      auto committed = store->commit("shop/prod", parent, "run-" + std::to_string(n), document);
      if (committed) {
        ++landed;
      } else {
        errors.push_back(committed.error());
      }
    }
  });
  EXPECT_TRUE(eventually(120s, [&] { return landed >= 3; })) << landed << " commits landed before the restart";
  auto restarted = shared_postgres()->restart();
  EXPECT_TRUE(restarted.has_value()) << restarted.error();
  const int before = landed;
  EXPECT_TRUE(eventually(120s, [&] { return landed >= before + 3; })) << landed - before << " commits after it";
  stop = true;
  committer.join();

  std::cout << landed << " commits landed, " << errors.size() << " calls failed during the restart";
  if (!errors.empty()) std::cout << ", e.g.: " << errors.front().message;
  std::cout << "\n";
  for (const ods::Error& error : errors) expect_clear_unavailable(error, "during the restart");
  auto head = store->latest("shop/prod");
  ASSERT_TRUE(head.has_value() && head->has_value());
  EXPECT_TRUE(attempted.contains((*head)->document)) << "the head is one whole committed document";
  auto report = store->check();
  ASSERT_TRUE(report.has_value());
  EXPECT_TRUE(report->ok) << (report->problems.empty() ? "" : report->problems.front());
}

}  // namespace
}  // namespace ods::testing
