// The read-only credential of a pull request's plan (docs/security.md): `ods state grants ROLE`
// prints the GRANTs that give a role SELECT on the state tables only; a plan with that role works
// and its role cannot write even outside a read-only session; a plan told --read-only-state that
// holds the writer's credential is refused with a message saying so, before it reads anything.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "harness/dbt_project.h"
#include "ods/state/postgres_access.h"
#include "pg_fixture.h"

namespace ods::testing {
namespace {

// `dsn` (key/value settings) with user=`role` instead of the superuser.
std::string as_role(std::string dsn, const std::string& role) {
  const auto at = dsn.find(" user=");
  const auto end = dsn.find(' ', at + 1);
  return dsn.replace(at, end - at, " user=" + role);
}

std::string dbname_of(const std::string& dsn) { return dsn.substr(dsn.find("dbname=") + 7); }

// Every line of `sql` but the comments, run by the superuser (the tables' owner) on the database.
void apply_as_owner(const std::string& sql, const std::string& dsn) {
  std::istringstream lines(sql);
  std::string statements;
  for (std::string line; std::getline(lines, line);)
    if (!line.starts_with("--")) statements += line + "\n";
  ProcessResult applied = shared_postgres()->psql(statements, dbname_of(dsn));
  ASSERT_EQ(applied.exit_code, 0) << applied.errors << "\n" << sql;
}

TEST(PostgresReadOnlyCredential, TheStateTablesAreEveryTableTheMigrationsCreate) {
  const std::string dsn = fresh_database();
  ASSERT_NE(open_pg(dsn), nullptr);  // creates the schema
  ProcessResult tables = shared_postgres()->psql(
      "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename", dbname_of(dsn));
  ASSERT_EQ(tables.exit_code, 0) << tables.errors;
  std::set<std::string> in_database;
  std::istringstream rows(tables.output);
  for (std::string row; std::getline(rows, row);)
    if (!row.empty()) in_database.insert(row);
  const auto& listed = state::postgres_state_tables();
  EXPECT_EQ(std::set<std::string>(listed.begin(), listed.end()), in_database);
  EXPECT_EQ(listed.size(), in_database.size()) << "no table twice";
}

TEST(PostgresReadOnlyCredential, AGrantedRoleReadsAndCannotWriteAndTheWriterIsRefused) {
  const std::string dsn = fresh_database();
  auto writer = open_pg(dsn);
  ASSERT_NE(writer, nullptr);
  auto committed = writer->commit("shop/prod", std::nullopt, "run-1", node_document(3, "run-1"));
  ASSERT_TRUE(committed.has_value()) << committed.error().message;

  auto sql = state::postgres_read_only_grants(dsn, "PR Reader");
  ASSERT_TRUE(sql.has_value()) << sql.error().message;
  EXPECT_NE(sql->find("GRANT USAGE ON SCHEMA public TO \"PR Reader\";"), std::string::npos) << *sql;
  EXPECT_NE(sql->find("GRANT SELECT ON TABLE public.schema_migrations, public.pieces"), std::string::npos) << *sql;
  EXPECT_EQ(sql->find("INSERT"), std::string::npos) << *sql;
  ASSERT_EQ(shared_postgres()->psql("CREATE ROLE \"PR Reader\" LOGIN", dbname_of(dsn)).exit_code, 0);
  apply_as_owner(*sql, dsn);
  const std::string reader_dsn = as_role(dsn, "'PR Reader'");

  state::OpenOptions pr_plan;
  pr_plan.read_only = true;
  pr_plan.refuse_writable_credential = true;
  auto reader = state::open_postgres_store(reader_dsn, ods::system_clock(), pr_plan);
  ASSERT_TRUE(reader.has_value()) << reader.error().message;
  auto latest = (*reader)->latest("shop/prod");
  ASSERT_TRUE(latest.has_value() && latest->has_value()) << (latest ? "" : latest.error().message);
  EXPECT_EQ((*latest)->id, committed->id);

  // The role itself cannot write: opened read-write (no read-only session), every write fails.
  state::OpenOptions read_write;
  read_write.create_if_missing = false;
  auto unguarded = state::open_postgres_store(reader_dsn, ods::system_clock(), read_write);
  ASSERT_TRUE(unguarded.has_value()) << unguarded.error().message;
  auto denied = (*unguarded)->commit("shop/prod", committed->id, "run-2", node_document(3, "run-2"));
  ASSERT_FALSE(denied.has_value());
  EXPECT_NE(denied.error().message.find("permission denied"), std::string::npos) << denied.error().message;
  EXPECT_FALSE((*unguarded)->reset("shop/prod").has_value());
  auto still = writer->latest("shop/prod");
  ASSERT_TRUE(still.has_value() && still->has_value());
  EXPECT_EQ((*still)->id, committed->id) << "the reader changed the state";

  // The writer's credential, asked to be read-only: refused, naming the role and the tables.
  auto refused = state::open_postgres_store(dsn, ods::system_clock(), pr_plan);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code, "writable_credential");
  EXPECT_NE(refused.error().message.find("(role postgres) can write the ODS state"), std::string::npos)
      << refused.error().message;
  EXPECT_NE(refused.error().message.find("heads"), std::string::npos) << refused.error().message;

  // A role granted only part of the writes is still a writer.
  ASSERT_EQ(shared_postgres()
                ->psql("CREATE ROLE half LOGIN; GRANT USAGE ON SCHEMA public TO half; GRANT SELECT ON "
                       "ALL TABLES IN SCHEMA public TO half; GRANT UPDATE ON heads TO half",
                       dbname_of(dsn))
                .exit_code,
            0);
  auto half = state::open_postgres_store(as_role(dsn, "half"), ods::system_clock(), pr_plan);
  ASSERT_FALSE(half.has_value());
  EXPECT_EQ(half.error().code, "writable_credential");
  EXPECT_NE(half.error().message.find("on heads)"), std::string::npos) << half.error().message;
}

// The CLI as a pull request's plan runs it (`ods state run --dry-run --read-only-state`, what the
// CI steps run in a pull/merge request job): the reader plans against production's state and
// reuses; the writer's credential is refused (exit 1) with a message saying so; a command that
// records is a usage error; `ods state grants` prints what the library makes.
TEST(PostgresReadOnlyCredential, APullRequestPlanWithTheReaderReusesAndWithTheWriterIsRefused) {
  const std::string dsn = fresh_database();
  DbtProject p("shop");
  ASSERT_EQ(p.generate_data().exit_code, 0);
  const std::string writer = url_of(dsn);
  ProcessResult run = p.ods({"state", "run", "--profiles-dir", p.dir().string(), "--state", writer});
  ASSERT_EQ(run.exit_code, 0) << run.output << run.errors;

  ProcessResult grants = p.ods({"state", "grants", "pr_reader", "--state", writer});
  ASSERT_EQ(grants.exit_code, 0) << grants.errors;
  auto direct = state::postgres_read_only_grants(dsn, "pr_reader");
  ASSERT_TRUE(direct.has_value());
  EXPECT_EQ(grants.output, *direct);
  ASSERT_EQ(shared_postgres()->psql("CREATE ROLE pr_reader LOGIN", dbname_of(dsn)).exit_code, 0);
  apply_as_owner(grants.output, dsn);
  std::string reader = writer;
  reader.replace(reader.find("//") + 2, reader.find('@') - reader.find("//") - 2, "pr_reader:pr-pw");

  const std::vector<std::string> pr_plan{"state",    "run",  "--dry-run",      "--read-only-state",
                                         "--format", "json", "--profiles-dir", p.dir().string(),
                                         "--state"};
  auto with = [&](const std::string& url) {
    std::vector<std::string> args = pr_plan;
    args.push_back(url);
    return p.ods(args);
  };
  ProcessResult planned = with(reader);
  ASSERT_EQ(planned.exit_code, 0) << planned.output << planned.errors;
  const auto doc = nlohmann::json::parse(planned.output);
  const auto& entries = doc.at("plan").at("entries");
  EXPECT_GT(std::ranges::count_if(entries, [](const auto& e) { return e.at("action") == "reuse"; }), 5)
      << planned.output;

  ProcessResult refused = with(writer);
  EXPECT_EQ(refused.exit_code, 1) << refused.output << refused.errors;
  EXPECT_NE(refused.errors.find("can write the ODS state"), std::string::npos) << refused.errors;
  EXPECT_NE(refused.errors.find("--read-only-state"), std::string::npos) << refused.errors;
  EXPECT_EQ(refused.errors.find("pr-pw"), std::string::npos);

  ProcessResult plan = p.ods({"state", "plan", "--read-only-state", "--state", writer});
  EXPECT_EQ(plan.exit_code, 1) << plan.output << plan.errors;
  EXPECT_NE(plan.errors.find("can write the ODS state"), std::string::npos) << plan.errors;

  ProcessResult records =
      p.ods({"state", "run", "--read-only-state", "--profiles-dir", p.dir().string(), "--state", reader});
  EXPECT_EQ(records.exit_code, 2) << records.output << records.errors;
  EXPECT_NE(records.errors.find("only read the state"), std::string::npos) << records.errors;

  ProcessResult on_sqlite = p.ods({"state", "grants", "pr_reader"});
  EXPECT_EQ(on_sqlite.exit_code, 2);
  EXPECT_NE(on_sqlite.errors.find("PostgreSQL"), std::string::npos) << on_sqlite.errors;
}

}  // namespace
}  // namespace ods::testing
