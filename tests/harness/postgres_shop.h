#pragma once
// Test harness: the gtest fixture of the suites that run examples/shop on a real PostgreSQL (the
// `pg` target), each case in a fresh database: relation identity, evidence cost, the native
// probe, PostgreSQL sources' evidence.
//
// A suite derives from PostgresShopFixture, names its template database `loaded` (the
// constructor's argument) and calls load_shop_raw_tables(loaded) from its SetUpTestSuite.
// - Per suite: the suite's private server, suite_server(loaded) (one per template name, so a
//   restart or crash in one suite disturbs no other), and the raw tables of examples/shop loaded
//   into database `loaded` by scripts/generate_data.py. Returns nullptr after any failure, which
//   it reports (EXPECT) and which makes gtest skip the suite's cases.
// - Per case, SetUp(): database kDatabase ("shop", the name the profile and the compiled SQL
//   know) created from `loaded` as a template, and project_ a fresh copy of examples/shop
//   connected to it by shop_connection_env, followed by the suite's extra environment entries.
//   A server that did not start or a database not created fails SetUp (ASSERT); a suite that
//   overrides SetUp calls this one first and returns when HasFatalFailure().
// - TearDown(): the copy is removed and the database dropped (with force).
// SetUp runs no ods: the suite runs ods_state_run() or run_plan() on the copy where it needs a build.
// Not thread-safe; cases run one after another.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness/dbt_project.h"
#include "harness/postgres_server.h"

namespace ods::testing {

// The environment entries that point examples/shop's `pg` target (its profiles.yml reads
// SHOP_PG_HOST, _PORT, _USER, _DBNAME) at `database` on `server`.
std::vector<std::string> shop_connection_env(const PostgresServer& server, const std::string& database);

class PostgresShopFixture : public ::testing::Test {
 protected:
  // The database each case builds into.
  static constexpr const char* kDatabase = "shop";

  // `loaded`: the suite's template database (and its server's key); `env`: entries added to
  // the project's environment after the connection's (e.g. ODS_CONTENT_MAX_BYTES=unlimited).
  explicit PostgresShopFixture(std::string loaded, std::vector<std::string> env = {})
      : loaded_(std::move(loaded)), env_(std::move(env)) {}

  // The suite's server with examples/shop's raw tables in database `loaded`; nullptr (the
  // failure reported) when the server did not start or the load failed.
  static PostgresServer* load_shop_raw_tables(const std::string& loaded);

  void SetUp() override;
  void TearDown() override;

  // `ods state run --target pg --profiles-dir <copy> <args...>` on project_.
  ProcessResult ods_state_run(const std::vector<std::string>& args) const;
  // ods_state_run with `--format json` and `args`: the document's "plan" (an empty object when
  // absent); fails the test (EXPECT) when ods exits non-zero or prints no JSON.
  nlohmann::json run_plan(const std::vector<std::string>& args) const;

  PostgresServer* pg_ = nullptr;
  std::optional<DbtProject> project_;

 private:
  std::string loaded_;
  std::vector<std::string> env_;
};

}  // namespace ods::testing
