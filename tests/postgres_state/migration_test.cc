// Schema migrations of the PostgreSQL store: a new database gets every migration once,
// even with several processes opening it at once (advisory lock); a database migrated by a
// newer ODS, or one whose record this ODS does not know, is refused and left untouched.
// (Schema version 1 is the only one released, so there is no older version to migrate from.)
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "ods/state/stores.h"
#include "pg_fixture.h"
#include "postgres_migrations.h"
#include "postgres_store.h"

namespace ods::testing {
namespace {

std::string db_of(const std::string& dsn) { return dsn.substr(dsn.find("dbname=") + 7); }

std::string query(const std::string& dsn, const std::string& sql) {
  ProcessResult rows = shared_postgres()->psql(sql, db_of(dsn));
  EXPECT_EQ(rows.exit_code, 0) << rows.errors;
  return rows.output;
}

TEST(PostgresMigrations, NewDatabaseGetsEveryMigrationOnceAndReopensUnchanged) {
  const std::string dsn = fresh_database();
  ASSERT_NE(open_pg(dsn), nullptr);
  const std::string recorded = query(dsn, "SELECT version, name, applied_at FROM schema_migrations ORDER BY version");
  EXPECT_EQ(recorded.substr(0, recorded.find('|', 2)), "1|initial_schema");
  auto again = open_pg(dsn);
  ASSERT_NE(again, nullptr);
  auto report = again->check();
  ASSERT_TRUE(report.has_value());
  EXPECT_EQ(report->schema_version, "1");
  EXPECT_EQ(query(dsn, "SELECT version, name, applied_at FROM schema_migrations ORDER BY version"), recorded);
}

TEST(PostgresMigrations, WithoutCreateAnEmptyDatabaseIsNotFoundAndGetsNoTables) {
  const std::string dsn = fresh_database();
  ods::state::OpenOptions options;
  options.create_if_missing = false;
  auto opened = ods::state::open_postgres_store(dsn, ods::system_clock(), options);
  ASSERT_FALSE(opened.has_value());
  EXPECT_EQ(opened.error().code, "not_found");
  EXPECT_EQ(query(dsn, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"), "0\n");
}

TEST(PostgresMigrations, OpenersAtOnceMigrateOnceUnderTheAdvisoryLock) {
  const std::string dsn = fresh_database();
  // A slow second migration keeps the first opener migrating while the others arrive.
  std::vector<ods::state::internal::Migration> migrations = ods::state::internal::builtin_postgres_migrations();
  migrations.push_back({2, "slow_test_migration", "SELECT pg_sleep(1); CREATE TABLE test_marker (v int);"});
  constexpr int kOpeners = 4;
  std::vector<ods::Result<std::unique_ptr<ods::contracts::StateStore>>> opened(kOpeners);
  std::vector<std::thread> openers;
  for (int i = 0; i < kOpeners; ++i) {
    openers.emplace_back([&, i] {
      opened[i] = ods::state::internal::open_postgres_store_with(dsn, ods::system_clock(), {}, migrations);
    });
  }
  for (std::thread& opener : openers) opener.join();
  for (const auto& result : opened) {
    EXPECT_TRUE(result.has_value()) << result.error().code << ": " << result.error().message;
  }
  EXPECT_EQ(query(dsn, "SELECT version FROM schema_migrations ORDER BY version"), "1\n2\n");
}

TEST(PostgresMigrations, NewerSchemaIsRefusedAndLeftUntouched) {
  const std::string dsn = fresh_database();
  ASSERT_NE(open_pg(dsn), nullptr);
  query(dsn, "INSERT INTO schema_migrations VALUES (2, 'from_a_newer_ods', '2027-01-01T00:00:00Z')");
  const std::string before = query(dsn, "SELECT * FROM schema_migrations ORDER BY version");
  auto opened = ods::state::open_postgres_store(dsn);
  ASSERT_FALSE(opened.has_value());
  EXPECT_EQ(opened.error().code, "newer_schema");
  EXPECT_NE(opened.error().message.find("schema version 2"), std::string::npos) << opened.error().message;
  EXPECT_NE(opened.error().message.find(db_of(dsn)), std::string::npos) << opened.error().message;
  EXPECT_EQ(query(dsn, "SELECT * FROM schema_migrations ORDER BY version"), before);
}

TEST(PostgresMigrations, UnknownRecordAndForeignTablesAreRefused) {
  const std::string renamed = fresh_database();
  ASSERT_NE(open_pg(renamed), nullptr);
  query(renamed, "UPDATE schema_migrations SET name = 'something_else' WHERE version = 1");
  auto unknown = ods::state::open_postgres_store(renamed);
  ASSERT_FALSE(unknown.has_value());
  EXPECT_EQ(unknown.error().code, "corrupt");

  const std::string foreign = fresh_database();
  query(foreign, "CREATE TABLE snapshots (v int)");
  auto refused = ods::state::open_postgres_store(foreign);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code, "corrupt");
  EXPECT_NE(refused.error().message.find("not an ODS state database"), std::string::npos);
  EXPECT_EQ(query(foreign, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"), "1\n");
}

}  // namespace
}  // namespace ods::testing
