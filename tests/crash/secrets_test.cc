// Secrets never leak (the CLI part): a state-store password in the URL and in PGPASSWORD, and a
// warehouse password in the environment, given to every command that opens the store; then
// their plain, sha256-hex and base64 forms are searched for in everything ods printed and in
// every file of the project (target/, .ods/, logs/).
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/sha.h>

#include <iostream>

#include "harness/loopback_port.h"
#include "harness/shop_baseline.h"

namespace ods::testing {
namespace {

std::string sha256_hex(const std::string& s) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(s.data()), s.size(), digest);
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned char c : digest) (out += hex[c >> 4]) += hex[c & 15];
  return out;
}

std::string base64(const std::string& s) {
  std::string out(4 * ((s.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(s.data()), static_cast<int>(s.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

// Each secret in the forms someone could search or check a guess with.
std::vector<std::string> forms_of(const std::vector<std::string>& secrets) {
  std::vector<std::string> out;
  for (const auto& s : secrets) {
    out.push_back(s);
    out.push_back(sha256_hex(s));
    out.push_back(base64(s));
  }
  return out;
}

// "" when none of `forms` occurs in `text`, else which one.
std::string leaked(const std::string& text, const std::vector<std::string>& forms) {
  for (const auto& f : forms)
    if (text.find(f) != std::string::npos) return f;
  return "";
}

TEST(SecretsNeverLeak, PasswordsInTheStateUrlAndTheEnvironmentAreNeverPrintedOrWritten) {
  const std::string url_password = "url-Secret-7f3a9c";
  const std::string pg_password = "env-Secret-51be20";
  const std::string warehouse_password = "wh-Secret-c0ffee";
  const auto forms = forms_of({url_password, pg_password, warehouse_password});
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
  int checked = 0;
  for (const auto& args : commands) {
    ProcessResult r = p.ods(args);
    std::string what = "ods";
    for (const auto& a : args) what += " " + a.substr(0, 40);
    EXPECT_NE(r.exit_code, 0) << what << " reached a server that is not there";
    // record refuses the baseline's run_results.json (dbt compile's) before it opens the store.
    if (args[1] != "record") {
      EXPECT_NE(r.errors.find("127.0.0.1"), std::string::npos) << what << ": the error names no server:\n" << r.errors;
    }
    EXPECT_EQ(leaked(r.output + r.errors, forms), "") << what << " printed a secret:\n" << r.output << r.errors;
    ++checked;
  }
  for (const auto& e : std::filesystem::recursive_directory_iterator(p.dir())) {
    if (!e.is_regular_file()) continue;
    EXPECT_EQ(leaked(read_text_file(e.path()), forms), "") << e.path() << " holds a secret";
    ++checked;
  }
  std::cout << "secrets: " << commands.size() << " commands' output and " << checked - commands.size()
            << " project files searched for 3 secrets in 3 forms each" << std::endl;
}

}  // namespace
}  // namespace ods::testing
