// Two CI jobs in separate clones of examples/shop, each running ci/github/action.yml with `state`
// set to one PostgreSQL state store (a private server started here) and building into the same
// warehouse: the second job reuses what the first built. The URL carries a password, which the
// action masks before anything prints it and which no summary or output holds.
#include <gtest/gtest.h>

#include <sstream>

#include "ci_fixture.h"
#include "harness/postgres_server.h"

namespace ods::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPassword = "s3cret-pw-4711";

// Every log line holding the password is its own ::add-mask:: line, printed before any other line
// mentions the state URL.
void expect_masked_first(const std::string& log) {
  std::istringstream lines(log);
  bool masked = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("::add-mask::")) {
      masked = true;
      continue;
    }
    EXPECT_EQ(line.find(kPassword), std::string::npos) << "the password is printed: " << line;
    if (line.find("127.0.0.1") != std::string::npos) {
      EXPECT_TRUE(masked) << "printed before the mask: " << line;
    }
  }
  EXPECT_TRUE(masked);
}

TEST(SharedPostgresState, TheSecondCloneReusesWhatTheFirstBuilt) {
  auto server = PostgresServer::start();
  ASSERT_TRUE(server.has_value()) << server.error();
  const std::string url = "postgresql://" + (*server)->user() + ":" + kPassword +
                          "@127.0.0.1:" + std::to_string((*server)->port()) + "/" + (*server)->database();
  ApiStandIn api(ApiStandIn::Options{});

  DbtProject first("shop");
  ProcessResult loaded = first.generate_data();
  ASSERT_EQ(loaded.exit_code, 0) << loaded.output << loaded.errors;
  DbtProject second("shop");  // another clone: no target/, no state, the same warehouse
  const std::string warehouse = "SHOP_DUCKDB_PATH=" + (first.dir() / "shop.duckdb").string();

  const nlohmann::json inputs = {{"command", "run"}, {"state", url}};
  auto job1 = run_action(shop_action_spec(inputs, first.dir().parent_path(), api.url(), "main", 0, "t", {warehouse}));
  ASSERT_EQ(job1.at("conclusion"), "success") << job1.at("log");
  const int built = std::stoi(job1.at("outputs").at("built").get<std::string>());
  EXPECT_GT(built, 5);

  auto job2 = run_action(shop_action_spec(inputs, second.dir().parent_path(), api.url(), "main", 0, "t", {warehouse}));
  ASSERT_EQ(job2.at("conclusion"), "success") << job2.at("log");
  // All but what examples/shop builds every time (dim_customers; orders_daily settles on its 2nd run).
  const int built2 = std::stoi(job2.at("outputs").at("built").get<std::string>());
  EXPECT_LE(built2, 2) << job2.at("summary");
  EXPECT_EQ(built2 + std::stoi(job2.at("outputs").at("reused").get<std::string>()), built);

  for (const auto* job : {&job1, &job2}) {
    expect_masked_first(job->at("log"));
    EXPECT_EQ(job->at("summary").get<std::string>().find(kPassword), std::string::npos);
    EXPECT_EQ(job->at("outputs").dump().find(kPassword), std::string::npos);
    EXPECT_TRUE(job->at("uses").empty()) << "no cache with PostgreSQL state: " << job->at("uses").dump();
  }
  EXPECT_FALSE(fs::exists(second.dir().parent_path() / ".ods-state" / "state.db"));
  ProcessResult rows = (*server)->psql(
      "select count(*) from information_schema.tables where table_schema not in "
      "('pg_catalog', 'information_schema')");
  EXPECT_EQ(rows.exit_code, 0) << rows.errors;
  EXPECT_NE(rows.output.substr(0, 1), "0") << "the state store holds no tables";
}

}  // namespace
}  // namespace ods::testing
