// Secrets never leak (the CLI part): a state-store password in the URL and in PGPASSWORD, and a
// warehouse password in the environment, given to every command that opens the store; then
// their forms (harness/secret_search.h) are searched for in everything ods printed and in
// every file of the project (target/, .ods/, logs/).
#include <gtest/gtest.h>

#include <iostream>

#include "harness/loopback_port.h"
#include "harness/secret_search.h"
#include "harness/shop_baseline.h"

namespace ods::testing {
namespace {

TEST(SecretsNeverLeak, PasswordsInTheStateUrlAndTheEnvironmentAreNeverPrintedOrWritten) {
  const std::string url_password = "url-Secret-7f3a9c";
  const std::string pg_password = "env-Secret-51be20";
  const std::string warehouse_password = "wh-Secret-c0ffee";
  SecretSearch search(
      {{"state URL password", url_password}, {"PGPASSWORD", pg_password}, {"warehouse password", warehouse_password}});
  DbtProject p = DbtProject::copy_of(shop_baseline());
  p.add_env({"PGPASSWORD=" + pg_password, "SHOP_PG_PASSWORD=" + warehouse_password,
             "DBT_ENV_SECRET_WAREHOUSE=" + warehouse_password});
  auto port = free_loopback_port();
  ASSERT_TRUE(port.has_value()) << port.error();
  // Nothing listens there: every command fails to connect, and says so.
  const std::string url = "postgresql://ods:" + url_password + "@127.0.0.1:" + std::to_string(*port) + "/ods_state";
  const std::vector<std::vector<std::string>> commands{
      {"state", "plan", "--state", url},
      {"state", "plan", "--state", url, "--format", "json"},
      {"state", "plan", "--state", url, "--format", "markdown"},
      {"state", "record", "--state", url},
      {"state", "history", "--state", url},
      {"state", "doctor", "--state", url},
      {"state", "diff", "--state", url},
      {"state", "explain", "stg_orders", "--state", url},
      {"state", "copy", "--to", url},
      {"state", "copy", "--from", url, "--to", "sqlite:" + (p.dir() / "copy.db").string()},
      {"state", "plan", "--state",
       "host=127.0.0.1 port=" + std::to_string(*port) + " user=ods password=" + url_password + " dbname=ods_state"},
  };
  for (const auto& args : commands) {
    ProcessResult r = p.ods(args);
    std::string what = "ods";
    for (const auto& a : args) what += " " + a.substr(0, 40);
    EXPECT_NE(r.exit_code, 0) << what << " reached a server that is not there";
    // record refuses the baseline's run_results.json (dbt compile's) before it opens the store.
    if (args[1] != "record") {
      EXPECT_NE(r.errors.find("127.0.0.1"), std::string::npos) << what << ": the error names no server:\n" << r.errors;
    }
    search.expect_clean("the output of " + what, r.output + r.errors);
  }
  const std::size_t files = search.expect_clean_tree(p.dir());
  std::cout << "secrets: " << commands.size() << " commands' output and " << files << " project files searched for "
            << search.forms() << " forms of 3 secrets" << std::endl;
}

}  // namespace
}  // namespace ods::testing
