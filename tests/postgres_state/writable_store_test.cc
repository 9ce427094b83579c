// A store a recording command can't write is found before anything starts (issue 39 item 5):
// StateStore::check_writable on PostgreSQL (a role with SELECT only, a role whose sessions are
// read-only, a store opened read-only), and `ods state run` with such a role stopping before
// any dbt call instead of building and then saying "the build ran but was not recorded".
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "harness/dbt_project.h"
#include "ods/state/postgres_access.h"
#include "pg_fixture.h"

namespace ods::testing {
namespace {

std::string dbname_of(const std::string& dsn) { return dsn.substr(dsn.find("dbname=") + 7); }

// `dsn` (key/value settings) with user=`role` instead of the superuser.
std::string as_role(std::string dsn, const std::string& role) {
  const auto at = dsn.find(" user=");
  const auto end = dsn.find(' ', at + 1);
  return dsn.replace(at, end - at, " user=" + role);
}

// A role `name` that may log in and read every state table, and nothing more.
void create_reader(const std::string& dsn, const std::string& name) {
  ProcessResult made = shared_postgres()->psql("CREATE ROLE " + name + " LOGIN; GRANT USAGE ON SCHEMA public TO " +
                                                   name + "; GRANT SELECT ON ALL TABLES IN SCHEMA public TO " + name,
                                               dbname_of(dsn));
  ASSERT_EQ(made.exit_code, 0) << made.errors;
}

TEST(PostgresWritableStore, CheckWritableFindsWhatCanNotRecordAndWritesNothing) {
  const std::string dsn = fresh_database();
  auto writer = open_pg(dsn);
  ASSERT_NE(writer, nullptr);
  auto committed = writer->commit("shop/prod", std::nullopt, "run-1", node_document(3, "run-1"));
  ASSERT_TRUE(committed.has_value()) << committed.error().message;
  auto writable = writer->check_writable();
  EXPECT_TRUE(writable.has_value()) << writable.error().message;

  // SELECT only, opened read-write: the store opens (its schema is current), a commit would fail.
  const std::string reader_role = "reader_" + dbname_of(dsn), frozen_role = "frozen_" + dbname_of(dsn);
  create_reader(dsn, reader_role);
  state::OpenOptions read_write;
  read_write.create_if_missing = false;
  auto reader = state::open_postgres_store(as_role(dsn, reader_role), ods::system_clock(), read_write);
  ASSERT_TRUE(reader.has_value()) << reader.error().message;
  auto refused = (*reader)->check_writable();
  ASSERT_FALSE(refused.has_value()) << "a role with SELECT only passed";
  EXPECT_EQ(refused.error().code, "permission_denied");
  EXPECT_NE(refused.error().message.find("role " + reader_role), std::string::npos) << refused.error().message;
  EXPECT_NE(refused.error().message.find("INSERT on heads"), std::string::npos) << refused.error().message;
  EXPECT_NE(refused.error().message.find("INSERT on snapshots"), std::string::npos) << refused.error().message;

  // Every privilege, but its sessions are read-only.
  ASSERT_EQ(shared_postgres()
                ->psql("CREATE ROLE " + frozen_role + " LOGIN; GRANT USAGE ON SCHEMA public TO " + frozen_role +
                           "; GRANT ALL ON ALL TABLES IN SCHEMA public TO " + frozen_role + "; ALTER ROLE " +
                           frozen_role + " SET default_transaction_read_only = on",
                       dbname_of(dsn))
                .exit_code,
            0);
  auto frozen = state::open_postgres_store(as_role(dsn, frozen_role), ods::system_clock(), read_write);
  ASSERT_TRUE(frozen.has_value()) << frozen.error().message;
  auto read_only_session = (*frozen)->check_writable();
  ASSERT_FALSE(read_only_session.has_value()) << "a read-only session passed";
  EXPECT_EQ(read_only_session.error().code, "permission_denied");
  EXPECT_NE(read_only_session.error().message.find("is read-only"), std::string::npos)
      << read_only_session.error().message;

  // The writer's own store opened read-only.
  state::OpenOptions read_only;
  read_only.read_only = true;
  auto plan = state::open_postgres_store(dsn, ods::system_clock(), read_only);
  ASSERT_TRUE(plan.has_value()) << plan.error().message;
  auto opened_read_only = (*plan)->check_writable();
  ASSERT_FALSE(opened_read_only.has_value());
  EXPECT_EQ(opened_read_only.error().code, "permission_denied");

  auto history = writer->history("shop/prod", 0);
  ASSERT_TRUE(history.has_value());
  EXPECT_EQ(history->size(), 1u) << "a check wrote";
}

// `ods state run` and `ods state test` with a credential that can only read: refused before any
// dbt call (the dbt given is a script that leaves a mark when it is started), exit 1, saying why;
// nothing is recorded. On main the run went on to dbt and built.
TEST(PostgresWritableStore, ARunWithAReadOnlyCredentialStopsBeforeDbt) {
  const std::string dsn = fresh_database();
  ASSERT_NE(open_pg(dsn), nullptr);  // the schema, current
  const std::string role = "ci_reader_" + dbname_of(dsn);
  create_reader(dsn, role);
  DbtProject p("shop");
  const std::filesystem::path mark = p.dir() / "dbt-was-started";
  const std::filesystem::path dbt = p.dir() / "marking-dbt";
  {
    std::ofstream script(dbt);
    script << "#!/bin/sh\ntouch '" << mark.string() << "'\nexit 1\n";
  }
  std::filesystem::permissions(dbt, std::filesystem::perms::owner_all);
  std::string reader = url_of(dsn);
  reader.replace(reader.find("//") + 2, reader.find('@') - reader.find("//") - 2, role);
  for (const std::string command : {"run", "test"}) {
    ProcessResult r =
        p.ods({"state", command, "--dbt", dbt.string(), "--profiles-dir", p.dir().string(), "--state", reader});
    EXPECT_EQ(r.exit_code, 1) << command << "\n" << r.output << r.errors;
    EXPECT_NE(r.errors.find("can't be written by role " + role), std::string::npos) << command << "\n" << r.errors;
    EXPECT_NE(r.errors.find("no dbt command ran"), std::string::npos) << command << "\n" << r.errors;
    EXPECT_FALSE(std::filesystem::exists(mark)) << "ods state " << command << " started dbt";
    std::filesystem::remove(mark);
  }
  auto store = open_pg(dsn);
  ASSERT_NE(store, nullptr);
  auto scopes = store->scopes();
  ASSERT_TRUE(scopes.has_value());
  EXPECT_TRUE(scopes->empty()) << "something was recorded";
}

}  // namespace
}  // namespace ods::testing
