// PostgreSQL sources' evidence on a real server (providers/postgres, docs/warehouses.md): the
// exact content fingerprint within the content limit, and above it the catalog and statistics,
// which must read as changed (or unknown) after every fault that can hide a change, never as
// unchanged. Each case: examples/shop built by `ods state run` in a fresh database, then the
// fault, then `ods state plan`: stg_customers (a view over raw.customers) shows the decision.
// One private server for the suite (a restart must not disturb other suites).
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/background_process.h"
#include "harness/busy_session.h"
#include "harness/postgres_server.h"
#include "harness/postgres_shop.h"
#include "harness/shop_baseline.h"

namespace ods::testing {
namespace {

constexpr const char* kLoaded = "shop_loaded";  // the raw tables only, the template of each case

class PostgresEvidence : public PostgresShopFixture {
 protected:
  PostgresEvidence() : PostgresShopFixture(kLoaded) {}

  static void SetUpTestSuite() {
    PostgresServer* pg = load_shop_raw_tables(kLoaded);
    if (!pg) return;
    // raw.payments: columns of types with no 64-bit hash (the fingerprint's text form must serve
    // them); raw.customers: a numeric beside columns that hash by value.
    ODS_ASSERT_OK(
        pg->psql("alter table raw.payments add column detail json default '{}', add column place point "
                 "default point(0, 0); alter table raw.customers add column credit numeric default 1.0; "
                 "create index customers_id on raw.customers (customer_id)"));
  }

  // The content limit for ods ($ODS_CONTENT_MAX_BYTES): "0" reads every non-empty table by its
  // statistics, "unlimited" every relation by its content.
  void limit(const std::string& bytes) { project_->add_env({"ODS_CONTENT_MAX_BYTES=" + bytes}); }

  void run_first() { ODS_ASSERT_OK(ods_state_run({})); }

  // `ods state run --dry-run`: the probe and the plan, nothing built; the plan document.
  nlohmann::json plan() { return run_plan({"--dry-run"}); }
};

// --- within the limit: the exact content ---

TEST_F(PostgresEvidence, ContentOfColumnsWithoutA64BitHashIsFingerprintedExactly) {
  limit("unlimited");
  run_first();
  auto p = plan();
  const auto& stg = entry(p, "stg_payments");
  EXPECT_EQ(decision(stg), "reuse:unchanged") << stg.dump(2);
  const nlohmann::json* payments = evidence_about(stg, "source_data_version", "source.shop.raw.payments");
  ASSERT_NE(payments, nullptr) << stg.dump(2);
  EXPECT_EQ(payments->value("origin", ""), "postgres_content") << stg.dump(2);
  EXPECT_EQ(payments->value("exactness", ""), "exact") << stg.dump(2);
  ODS_ASSERT_OK(
      pg_->psql("update raw.payments set detail = '{\"a\": 1}' where payment_id = (select "
                "min(payment_id) from raw.payments)",
                kDatabase));
  EXPECT_EQ(decision(entry(plan(), "stg_payments")), "build:new_upstream_data");
}

// numeric 1.0 and 1.00 are equal and hash alike (hash_record_extended), but print differently:
// the fingerprint must see the change.
TEST_F(PostgresEvidence, ANumericRescaledWithoutChangingItsValueIsAChange) {
  limit("unlimited");
  run_first();
  ODS_ASSERT_OK(
      pg_->psql("update raw.customers set credit = 1.00 where customer_id = (select min(customer_id) from "
                "raw.customers)",
                kDatabase));
  auto p = plan();
  EXPECT_EQ(decision(entry(p, "stg_customers")), "build:new_upstream_data") << entry(p, "stg_customers").dump(2);
}

// --- above the limit: the statistics ---

// stg_customers is reused on raw.customers' statistics, read as settled semantic evidence.
void expect_reused_on_statistics(const nlohmann::json& p) {
  const auto& stg = entry(p, "stg_customers");
  EXPECT_EQ(decision(stg), "reuse:unchanged") << stg.dump(2);
  const nlohmann::json* customers = evidence_about(stg, "source_data_version", "source.shop.raw.customers");
  ASSERT_NE(customers, nullptr) << stg.dump(2);
  EXPECT_EQ(customers->value("origin", ""), "postgres_statistics") << stg.dump(2);
  EXPECT_EQ(customers->value("exactness", ""), "semantic") << stg.dump(2);
  EXPECT_NE(all_evidence_of(stg, "source_content_unread").find("above the content limit of 0 bytes"), std::string::npos)
      << stg.dump(2);
}

TEST_F(PostgresEvidence, SettledStatisticsOfAnUnchangedTableAreReusedAsSemanticEvidence) {
  limit("0");
  run_first();
  expect_reused_on_statistics(plan());
}

// Each fault below, after a recorded run over statistics, must build the reader.
void expect_built(const nlohmann::json& p) {
  const auto& stg = entry(p, "stg_customers");
  EXPECT_EQ(stg.at("action"), "build") << stg.dump(2);
  EXPECT_NE(decision(stg), "reuse:unchanged") << stg.dump(2);
}

TEST_F(PostgresEvidence, RowsInsertedAboveTheLimitBuildTheReaders) {
  limit("0");
  run_first();
  ODS_ASSERT_OK(
      pg_->psql("insert into raw.customers (customer_id, first_name) select max(customer_id) + 1, 'new' from "
                "raw.customers",
                kDatabase));
  expect_built(plan());
}

TEST_F(PostgresEvidence, AStatisticsResetBuildsTheReaders) {
  limit("0");
  run_first();
  ODS_ASSERT_OK(pg_->psql("select pg_stat_reset()", kDatabase));
  expect_built(plan());
}

TEST_F(PostgresEvidence, AServerRestartBuildsTheReaders) {
  limit("0");
  run_first();
  auto restarted = pg_->restart();
  ASSERT_TRUE(restarted) << restarted.error();
  expect_built(plan());
}

TEST_F(PostgresEvidence, TruncateAndReloadWithTheSameRowsBuildsTheReaders) {
  limit("0");
  run_first();
  ODS_ASSERT_OK(
      pg_->psql("create temporary table c as select * from raw.customers; truncate raw.customers; "
                "insert into raw.customers select * from c",
                kDatabase));
  expect_built(plan());
}

TEST_F(PostgresEvidence, VacuumFullBuildsTheReaders) {
  limit("0");
  run_first();
  ODS_ASSERT_OK(pg_->psql("vacuum full raw.customers", kDatabase));
  expect_built(plan());
}

TEST_F(PostgresEvidence, ClusterBuildsTheReaders) {
  limit("0");
  run_first();
  ODS_ASSERT_OK(pg_->psql("cluster raw.customers using customers_id", kDatabase));
  expect_built(plan());
}

TEST_F(PostgresEvidence, ATableRenamedAwayAndAnotherRenamedIntoItsPlaceBuildsTheReaders) {
  limit("0");
  run_first();
  ODS_ASSERT_OK(
      pg_->psql("create table raw.customers_next (like raw.customers including all); "
                "insert into raw.customers_next select * from raw.customers; "
                "alter table raw.customers rename to customers_old; "
                "alter table raw.customers_next rename to customers",
                kDatabase));
  expect_built(plan());
}

// A session that is busy (here: sleeping in an open transaction) may hold committed changes the
// statistics don't count yet: the statistics are unknown, and the reason says so.
TEST_F(PostgresEvidence, AnotherBusySessionMakesTheStatisticsUnknown) {
  limit("0");
  run_first();
  BackgroundProcess busy;  // the superuser's: it may write every table
  auto sleeping = start_busy_session(busy, *pg_, pg_->user(), kDatabase, "", project_->dir());
  ASSERT_TRUE(sleeping) << sleeping.error();
  auto p = plan();
  const auto& stg = entry(p, "stg_customers");
  EXPECT_EQ(stg.at("action"), "build") << stg.dump(2);
  EXPECT_NE(stg.dump().find("busy within the last 20 s"), std::string::npos) << stg.dump(2);
}

// Only sessions whose role may write the table count: a dashboard's role may only SELECT the raw
// tables, so its busy session (reading raw.customers, then sleeping) leaves the statistics settled.
TEST_F(PostgresEvidence, ABusySessionOfARoleThatMayOnlyReadLeavesTheStatisticsSettled) {
  limit("0");
  run_first();
  (void)pg_->psql("drop role if exists dashboard", "postgres");  // left by an earlier failure
  ODS_ASSERT_OK(pg_->psql(
      "create role dashboard login; grant usage on schema raw to dashboard; grant select on all tables in schema "
      "raw to dashboard",
      kDatabase));
  BackgroundProcess dashboard;
  auto sleeping = start_busy_session(dashboard, *pg_, "dashboard", kDatabase, "select count(*) from raw.customers; ",
                                     project_->dir());
  ASSERT_TRUE(sleeping) << sleeping.error();
  expect_reused_on_statistics(plan());
  dashboard.stop();
  (void)pg_->psql("drop owned by dashboard; drop role dashboard", kDatabase);
}

// A role without SELECT on a statistics view: the statement fails the probe call, so every source
// is unknown and every relation unverified, and the warning quotes PostgreSQL.
TEST_F(PostgresEvidence, ARoleWithoutSelectOnTheStatisticsViewsBuildsWithPostgresReason) {
  limit("0");
  run_first();
  (void)pg_->psql("drop role if exists reader",
                  "postgres");  // left by an earlier failure: its grants died with the database
  ODS_ASSERT_OK(
      pg_->psql("revoke select on pg_catalog.pg_stat_activity from public; "
                "create role reader login; grant usage on schema raw, main to reader; "
                "grant select on all tables in schema raw, main to reader",
                kDatabase));
  project_->add_env({"SHOP_PG_USER=reader"});
  auto p = plan();
  const auto& stg = entry(p, "stg_customers");
  EXPECT_EQ(stg.at("action"), "build") << stg.dump(2);
  EXPECT_NE(p.dump().find("permission denied for view pg_stat_activity"), std::string::npos) << p.dump(2);
  (void)pg_->psql("drop owned by reader; drop role reader", kDatabase);
}

}  // namespace
}  // namespace ods::testing
