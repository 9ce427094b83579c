// A reused relation is the one ODS recorded (issue 38 item 4, docs/warehouses.md "Relation
// identity"): after `ods state run` built and recorded examples/shop, each way of writing a
// model's relation outside ODS must make the next run build it (relation_changed_outside), never
// reuse it. On a real PostgreSQL (a private server: a restart must not disturb other suites)
// and on real DuckDB.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "harness/background_process.h"
#include "harness/busy_session.h"
#include "harness/postgres_server.h"
#include "harness/postgres_shop.h"
#include "harness/relation_contents.h"
#include "harness/shop_baseline.h"

namespace ods::testing {
namespace {

constexpr const char* kFctOrders = "models/marts/fct_orders.sql";
// fct_orders' amounts three times over: the other code of a `dbt run -s fct_orders` outside ODS.
constexpr const char* kAmount = "    o.amount,\n";
constexpr const char* kTripled = "    o.amount * 3 as amount,\n";

// fct_orders is built again because its relation is not the one recorded, and says both identities.
void expect_changed_outside(const nlohmann::json& plan) {
  const auto& fct = entry(plan, "fct_orders");
  EXPECT_EQ(decision(fct), "build:relation_changed_outside") << fct.dump(2);
  const nlohmann::json* identity = evidence_about(fct, "relation_identity", "model.shop.fct_orders");
  ASSERT_NE(identity, nullptr) << fct.dump(2);
  const std::string value = identity->value("value", "");
  EXPECT_EQ(value.rfind("recorded ", 0), 0u) << value;
  EXPECT_NE(value.find(", now "), std::string::npos) << value;
}

// The project's runs, on either warehouse: `ods state run` (optionally --dry-run) as JSON.
class IdentityRuns {
 protected:
  virtual ~IdentityRuns() = default;
  // The recorded copy of examples/shop the case runs on.
  virtual const DbtProject& project() const = 0;
  // fct_orders' rows, as text that differs when they do.
  virtual std::string rows() = 0;

  ProcessResult state_run(bool dry_run) {
    std::vector<std::string> args{"state", "run", "--format", "json", "--profiles-dir", project().dir().string()};
    if (dry_run) args.push_back("--dry-run");
    args.insert(args.end(), target_.begin(), target_.end());
    return project().ods(args);
  }
  nlohmann::json ods_run(bool dry_run) {
    ProcessResult r = state_run(dry_run);
    EXPECT_EQ(r.exit_code, 0) << r.output << r.errors;
    return output_json(r);
  }
  nlohmann::json plan() { return ods_run(true).value("plan", nlohmann::json::object()); }

  // `dbt run -s fct_orders` with its amounts tripled, then the code reverted: fct_orders holds
  // other rows than ODS's build while the code is the recorded code again.
  void rewrite_fct_orders_outside() {
    const std::string code = project().read(kFctOrders);
    project().replace_in(kFctOrders, kAmount, kTripled);
    std::vector<std::string> args{"run", "-s", "fct_orders"};
    args.insert(args.end(), target_.begin(), target_.end());
    ODS_ASSERT_OK(project().dbt(args));
    project().write(kFctOrders, code);
  }

  // The main case: a `dbt run` with other code, the code reverted. Without the identity the run
  // reuses fct_orders (its code and inputs are the recorded ones) and keeps the tripled amounts.
  void expect_an_outside_run_built_again() {
    rewrite_fct_orders_outside();
    ASSERT_NE(rows(), built_rows_) << "the outside run changed nothing";
    const nlohmann::json run = ods_run(false);
    expect_changed_outside(run.value("plan", nlohmann::json::object()));
    EXPECT_EQ(rows(), built_rows_) << "fct_orders must hold what dbt build of the recorded code gives";
    // The build recorded the new identity: the next run reuses it.
    EXPECT_EQ(decision(entry(plan(), "fct_orders")), "reuse:unchanged");
  }

  std::vector<std::string> target_;
  std::string built_rows_;  // fct_orders as ODS's first build (dbt build of the same code) left it
};

// --- PostgreSQL ---

constexpr const char* kLoaded = "shop_identity_loaded";  // the raw tables only, the template of each case

class PostgresRelationIdentity : public PostgresShopFixture, protected IdentityRuns {
 protected:
  PostgresRelationIdentity() : PostgresShopFixture(kLoaded) {}

  static void SetUpTestSuite() { load_shop_raw_tables(kLoaded); }

  // A fresh database of the raw tables, examples/shop built and recorded in it by `ods state run`.
  void SetUp() override {
    PostgresShopFixture::SetUp();
    if (HasFatalFailure()) return;
    target_ = {"--target", "pg"};
    const nlohmann::json first = ods_run(false);
    ASSERT_EQ(decision(entry(first.value("plan", nlohmann::json::object()), "fct_orders")), "build:never_built");
    built_rows_ = rows();
  }

  const DbtProject& project() const override { return *project_; }

  void sql(const std::string& statements) { ODS_ASSERT_OK(pg_->psql(statements, kDatabase)); }

  // fct_orders' rows: their count and an order-independent sum of their text's hashes.
  std::string rows() override {
    return pg_
        ->psql("select count(*) || '/' || coalesce(sum(hashtext(t::text)::bigint), 0) from main.fct_orders t",
               kDatabase)
        .output;
  }

  // A login role that may read the shop's tables only (left by an earlier failure: dropped first).
  void create_reader_role(const std::string& role) {
    (void)pg_->psql("drop role if exists " + role, "postgres");
    sql("create role " + role + " login; grant usage on schema raw, main to " + role +
        "; grant select on all tables in schema raw, main to " + role);
  }

  void drop_role(const std::string& role) {
    (void)pg_->psql("select pg_terminate_backend(pid) from pg_stat_activity where usename = '" + role + "'", kDatabase);
    (void)pg_->psql("drop owned by " + role + "; drop role " + role, kDatabase);
  }
};

TEST_F(PostgresRelationIdentity, AnUntouchedRelationIsReusedOnItsRecordedIdentity) {
  const auto p = plan();
  const auto& fct = entry(p, "fct_orders");
  EXPECT_EQ(decision(fct), "reuse:unchanged") << fct.dump(2);
  const nlohmann::json* identity = evidence_about(fct, "relation_identity", "model.shop.fct_orders");
  ASSERT_NE(identity, nullptr) << fct.dump(2);
  EXPECT_EQ(identity->value("exactness", ""), "exact") << fct.dump(2);
  EXPECT_EQ(identity->value("value", "").rfind("oid=", 0), 0u) << fct.dump(2);
  EXPECT_EQ(decision(entry(p, "stg_orders")), "reuse:unchanged") << entry(p, "stg_orders").dump(2);  // a view
}

// The main case (expect_an_outside_run_built_again).
TEST_F(PostgresRelationIdentity, ADbtRunWithOtherCodeThenRevertedBuildsTheRelationAgain) {
  expect_an_outside_run_built_again();
}

TEST_F(PostgresRelationIdentity, ATableReplacedByHandWithTheSameRowsBuilds) {
  sql("create table main.fct_orders_copy as select * from main.fct_orders; drop table main.fct_orders cascade; "
      "alter table main.fct_orders_copy rename to fct_orders");
  expect_changed_outside(plan());
}

TEST_F(PostgresRelationIdentity, TruncateAndReloadWithTheSameRowsBuilds) {
  sql("create temporary table c as select * from main.fct_orders; truncate main.fct_orders; "
      "insert into main.fct_orders select * from c");
  expect_changed_outside(plan());
}

TEST_F(PostgresRelationIdentity, VacuumFullBuilds) {
  sql("vacuum full main.fct_orders");
  expect_changed_outside(plan());
}

TEST_F(PostgresRelationIdentity, ATableRenamedAwayAndAnotherRenamedIntoItsPlaceBuilds) {
  sql("create table main.fct_orders_next (like main.fct_orders including all); "
      "insert into main.fct_orders_next select * from main.fct_orders; "
      "alter table main.fct_orders rename to fct_orders_old; alter table main.fct_orders_next rename to fct_orders");
  expect_changed_outside(plan());
}

// The statement's session ends with psql, which flushes its counts (docs/warehouses.md).
TEST_F(PostgresRelationIdentity, AnUpdateInPlaceBuilds) {
  sql("update main.fct_orders set amount = amount * 3 where order_id = (select min(order_id) from main.fct_orders)");
  expect_changed_outside(plan());
}

// The counters are gone after a reset: unknown, so the table builds, never reused on a guess.
TEST_F(PostgresRelationIdentity, AStatisticsResetBuilds) {
  sql("select pg_stat_reset()");
  expect_changed_outside(plan());
}

// A restart gives the server a new start time: the identity reads as changed, never the same.
TEST_F(PostgresRelationIdentity, AServerRestartBuilds) {
  auto restarted = pg_->restart();
  ASSERT_TRUE(restarted) << restarted.error();
  expect_changed_outside(plan());
}

// A crash discards every counter (and crash recovery sets pg_stat_wal's reset time): changed.
TEST_F(PostgresRelationIdentity, ACrashBuilds) {
  auto crashed = pg_->crash(PostgresServer::CrashMode::sigkill);
  ASSERT_TRUE(crashed) << crashed.error();
  auto restarted = pg_->restart();
  ASSERT_TRUE(restarted) << restarted.error();
  expect_changed_outside(plan());
}

TEST_F(PostgresRelationIdentity, ClusterBuilds) {
  sql("create index fct_orders_by_id on main.fct_orders (order_id); cluster main.fct_orders using fct_orders_by_id");
  expect_changed_outside(plan());
}

// A write whose counts are not flushed yet (docs/warehouses.md, "Relation identity"): a session
// inserts a row into fct_orders, commits, and keeps running (one query string: PostgreSQL 15+
// flushes a session's counts only when it goes idle). The row is visible, the counters don't show
// it, so the identity alone would read as the recorded one: while that session is busy the probe
// reads no identity and fct_orders builds, never reused. Once the session ended (its counts
// flushed at exit), the moved counters read as changed outside.
TEST_F(PostgresRelationIdentity, AWriteWhoseCountsAreNotFlushedYetBuilds) {
  const std::string counted = "select n_tup_ins from pg_stat_user_tables where relid = 'main.fct_orders'::regclass";
  const std::string inserts_before = pg_->psql(counted, kDatabase).output;
  BackgroundProcess writer;  // the superuser: it may write fct_orders
  auto sleeping = start_busy_session(writer, *pg_, pg_->user(), kDatabase,
                                     "insert into main.fct_orders select * from main.fct_orders where "
                                     "order_id = (select min(order_id) from main.fct_orders); commit; ",
                                     project_->dir());
  ASSERT_TRUE(sleeping) << sleeping.error();
  ASSERT_NE(rows(), built_rows_) << "the writer's row is not visible";
  ASSERT_EQ(pg_->psql(counted, kDatabase).output, inserts_before) << "the counts were flushed: nothing to prove";

  auto p = plan();
  const auto& fct = entry(p, "fct_orders");
  EXPECT_EQ(decision(fct), "build:relation_unverified") << fct.dump(2);
  const nlohmann::json* identity = evidence_about(fct, "relation_identity", "model.shop.fct_orders");
  ASSERT_NE(identity, nullptr) << fct.dump(2);
  EXPECT_NE(identity->value("value", "").find(", now unknown"), std::string::npos) << fct.dump(2);
  EXPECT_EQ(decision(entry(p, "stg_orders")), "reuse:unchanged") << "a view's identity counts nothing";

  // The writer's session ends: its counts are flushed as it exits, and the counters moved.
  ODS_ASSERT_OK(
      pg_->psql("select pg_terminate_backend(pid) from pg_stat_activity where query like '%select "
                "pg_sleep(600)' and pid <> pg_backend_pid()",
                kDatabase));
  bool flushed = false;
  for (int i = 0; i < 100 && !flushed; ++i) {
    flushed =
        !busy_session_sleeps(*pg_, pg_->user(), kDatabase) && pg_->psql(counted, kDatabase).output != inserts_before;
    if (!flushed) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(flushed) << "the writer's counts never showed";
  writer.stop();
  expect_changed_outside(plan());
}

// The settle rule counts only sessions that may write the table: a dashboard's session, of a role
// that may only SELECT, busy reading fct_orders for as long as it likes, holds no counts of writes
// to it, so fct_orders' identity is read and it is reused.
TEST_F(PostgresRelationIdentity, ABusySessionOfARoleThatMayOnlyReadDoesNotStopAReuse) {
  create_reader_role("dashboard");
  BackgroundProcess dashboard;
  auto sleeping = start_busy_session(dashboard, *pg_, "dashboard", kDatabase, "select count(*) from main.fct_orders; ",
                                     project_->dir());
  ASSERT_TRUE(sleeping) << sleeping.error();
  const auto p = plan();
  const auto& fct = entry(p, "fct_orders");
  EXPECT_EQ(decision(fct), "reuse:unchanged") << fct.dump(2);
  const nlohmann::json* identity = evidence_about(fct, "relation_identity", "model.shop.fct_orders");
  ASSERT_NE(identity, nullptr) << fct.dump(2);
  EXPECT_EQ(identity->value("value", "").rfind("oid=", 0), 0u) << fct.dump(2);
  dashboard.stop();
  drop_role("dashboard");
}

// ODS's role without pg_read_all_stats sees no state of another role's session: a busy session of
// a role that may write fct_orders (here the superuser, sleeping) whose state is hidden still
// counts, so fct_orders is unverified and builds, never reused.
TEST_F(PostgresRelationIdentity, ABusyWriterWhoseStateIsHiddenFromODSsRoleStillMakesItUnverified) {
  create_reader_role("ods_reader");
  BackgroundProcess writer;
  auto sleeping = start_busy_session(writer, *pg_, pg_->user(), kDatabase, "", project_->dir());
  ASSERT_TRUE(sleeping) << sleeping.error();
  const auto hidden =
      pg_->psql("set role ods_reader; select count(*) from pg_stat_activity where usename = '" + pg_->user() +
                    "' and datname = current_database() and pid <> pg_backend_pid() and state is null and backend_type "
                    "is null and "
                    "query = '<insufficient privilege>'",
                kDatabase);
  ASSERT_EQ(hidden.output.find('1'), 0u) << "the superuser's session is not hidden from ods_reader: " << hidden.output
                                         << hidden.errors;
  project_->add_env({"SHOP_PG_USER=ods_reader"});
  const auto p = plan();
  const auto& fct = entry(p, "fct_orders");
  EXPECT_EQ(decision(fct), "build:relation_unverified") << fct.dump(2);
  EXPECT_EQ(decision(entry(p, "stg_orders")), "reuse:unchanged") << "a view's identity counts nothing";
  writer.stop();
  drop_role("ods_reader");
}

// A view model dropped with what depends on it: missing, so it and its readers build.
TEST_F(PostgresRelationIdentity, ADroppedUpstreamViewBuildsItAndItsReaders) {
  sql("drop view main.stg_orders cascade");
  const auto p = plan();
  EXPECT_EQ(decision(entry(p, "stg_orders")), "build:relation_missing") << entry(p, "stg_orders").dump(2);
  EXPECT_EQ(entry(p, "fct_orders").value("action", ""), "build") << entry(p, "fct_orders").dump(2);
}

// A role that may not read the statistics: the probe's call fails, so nothing is verified and
// everything builds; the warning quotes PostgreSQL. Never a reuse on an identity not read.
TEST_F(PostgresRelationIdentity, ARoleWithoutSelectOnTheStatisticsBuildsEverything) {
  (void)pg_->psql("drop role if exists reader", "postgres");  // left by an earlier failure
  sql("revoke select on pg_catalog.pg_stat_user_tables from public; "
      "create role reader login; grant usage on schema raw, main to reader; "
      "grant select on all tables in schema raw, main to reader");
  project_->add_env({"SHOP_PG_USER=reader"});
  ProcessResult r = state_run(true);
  EXPECT_EQ(r.exit_code, 0) << r.output << r.errors;
  const nlohmann::json p = output_json(r).value("plan", nlohmann::json::object());
  EXPECT_EQ(entry(p, "fct_orders").value("action", ""), "build") << entry(p, "fct_orders").dump(2);
  EXPECT_NE((r.output + r.errors).find("permission denied for view pg_stat_user_tables"), std::string::npos)
      << r.output << r.errors;
  (void)pg_->psql("drop owned by reader; drop role reader", kDatabase);
}

// --- DuckDB ---

class DuckDbRelationIdentity : public ::testing::Test, protected IdentityRuns {
 protected:
  void SetUp() override {
    project_.emplace("shop");
    ODS_ASSERT_OK(project_->generate_data());
    ods_run(false);
    built_rows_ = rows();
  }

  const DbtProject& project() const override { return *project_; }

  std::string rows() override {
    const auto contents = relation_contents(*project_, duckdb_warehouse(), {"fct_orders"});
    return contents.contains("fct_orders") ? contents.at("fct_orders") : "";
  }

  std::optional<DbtProject> project_;
};

TEST_F(DuckDbRelationIdentity, ADbtRunWithOtherCodeThenRevertedBuildsTheRelationAgain) {
  EXPECT_EQ(decision(entry(plan(), "fct_orders")), "reuse:unchanged");
  expect_an_outside_run_built_again();
}

// No field of DuckDB's catalog moves with an UPDATE in place; the content identity does.
TEST_F(DuckDbRelationIdentity, AnUpdateInPlaceBuilds) {
  ODS_ASSERT_OK(project_->sql(
      "update main.fct_orders set amount = amount * 3 where order_id = (select min(order_id) from main.fct_orders)"));
  expect_changed_outside(plan());
}

// The same rows and columns under a new table: what ODS built is what it holds, so it is reused.
TEST_F(DuckDbRelationIdentity, ATableReplacedWithTheSameRowsIsTheSameContent) {
  ODS_ASSERT_OK(
      project_->sql("create table main.fct_orders_copy as select * from main.fct_orders; drop table main.fct_orders; "
                    "alter table main.fct_orders_copy rename to fct_orders"));
  EXPECT_EQ(decision(entry(plan(), "fct_orders")), "reuse:unchanged");
}

}  // namespace
}  // namespace ods::testing
