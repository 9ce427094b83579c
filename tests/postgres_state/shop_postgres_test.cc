// `ods state run` on examples/shop (DuckDB warehouse) with the PostgreSQL state store makes
// the same decisions, run after run, as with the SQLite default; `ods state copy` moves the
// state from one to the other and the plan stays the same.
#include <gtest/gtest.h>

#include <map>

#include "harness/dbt_project.h"
#include "pg_fixture.h"

namespace ods::testing {
namespace {

// Node name -> "action:first reason code" of a plan document.
std::map<std::string, std::string> decisions(const nlohmann::json& plan) {
  std::map<std::string, std::string> out;
  for (const auto& e : plan.at("entries")) {
    out[e.at("name").get<std::string>()] =
        e.at("action").get<std::string>() + ":" + e.at("reasons").at(0).at("code").get<std::string>();
  }
  return out;
}

std::map<std::string, std::string> run(const DbtProject& p, const std::vector<std::string>& state) {
  std::vector<std::string> args{"state", "run", "--format", "json", "--profiles-dir", p.dir().string()};
  args.insert(args.end(), state.begin(), state.end());
  ProcessResult r = p.ods(args);
  EXPECT_EQ(r.exit_code, 0) << r.output << r.errors;
  auto doc = nlohmann::json::parse(r.output, nullptr, false);
  if (doc.is_discarded() || !doc.contains("plan")) {
    ADD_FAILURE() << "stdout:\n" << r.output << "\nstderr:\n" << r.errors;
    return {};
  }
  return decisions(doc.at("plan"));
}

TEST(ShopOnPostgres, RunsDecideAsWithSqliteAndCopyMovesTheState) {
  const std::string pg = url_of(fresh_database());
  DbtProject on_sqlite("shop");
  DbtProject on_postgres("shop");
  ASSERT_EQ(on_sqlite.generate_data().exit_code, 0);
  ASSERT_EQ(on_postgres.generate_data().exit_code, 0);
  const std::vector<std::string> sqlite_state{};
  const std::vector<std::string> postgres_state{"--state", pg};

  for (int round = 0; round < 3; ++round) {  // first build, incremental steady state, nothing changed
    const auto expected = run(on_sqlite, sqlite_state);
    EXPECT_FALSE(expected.empty());
    EXPECT_EQ(run(on_postgres, postgres_state), expected) << "round " << round;
  }
  for (const DbtProject* p : {&on_sqlite, &on_postgres}) {
    p->replace_in("models/marts/orders_daily.sql", "count(*) as order_count", "count(order_date) as order_count");
  }
  const auto changed = run(on_sqlite, sqlite_state);
  EXPECT_EQ(changed.at("orders_daily"), "build:fingerprint_changed");
  EXPECT_EQ(run(on_postgres, postgres_state), changed);

  ProcessResult history = on_postgres.ods({"state", "history", "--format", "json", "--limit", "0", "--state", pg});
  ASSERT_EQ(history.exit_code, 0) << history.errors;
  const auto doc = nlohmann::json::parse(history.output);
  EXPECT_EQ(doc.at("runs").size(), 4u) << "every run is in the PostgreSQL ledger";

  // The SQLite project's state, copied into a new PostgreSQL database, plans the same.
  const std::string copy_target = url_of(fresh_database());
  ProcessResult copied = on_sqlite.ods({"state", "copy", "--to", copy_target});
  ASSERT_EQ(copied.exit_code, 0) << copied.errors;
  EXPECT_NE(copied.output.find("Copied 1 scope"), std::string::npos) << copied.output;
  ProcessResult again = on_sqlite.ods({"state", "copy", "--to", copy_target});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.errors.find("already holds state"), std::string::npos) << again.errors;
  ProcessResult plan_sqlite = on_sqlite.ods({"state", "plan", "--format", "json"});
  ProcessResult plan_copy = on_sqlite.ods({"state", "plan", "--format", "json", "--state", copy_target});
  ASSERT_EQ(plan_sqlite.exit_code, 0) << plan_sqlite.errors;
  ASSERT_EQ(plan_copy.exit_code, 0) << plan_copy.errors;
  EXPECT_EQ(decisions(nlohmann::json::parse(plan_copy.output)), decisions(nlohmann::json::parse(plan_sqlite.output)));

  // And back: PostgreSQL to a new SQLite file.
  const std::string back = "sqlite:" + (on_postgres.dir() / "back.db").string();
  ProcessResult returned = on_postgres.ods({"state", "copy", "--from", pg, "--to", back, "--all"});
  ASSERT_EQ(returned.exit_code, 0) << returned.errors;
  ProcessResult plan_back = on_postgres.ods({"state", "plan", "--format", "json", "--state", back});
  ProcessResult plan_pg = on_postgres.ods({"state", "plan", "--format", "json", "--state", pg});
  ASSERT_EQ(plan_back.exit_code, 0) << plan_back.errors;
  ASSERT_EQ(plan_pg.exit_code, 0) << plan_pg.errors;
  EXPECT_EQ(decisions(nlohmann::json::parse(plan_back.output)), decisions(nlohmann::json::parse(plan_pg.output)));
}

}  // namespace
}  // namespace ods::testing
