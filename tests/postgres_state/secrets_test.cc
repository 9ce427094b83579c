// No password in an error message or a printed URL, whatever form the connection string
// takes and however the connection fails; a password in the URL does not stop a store
// from working (the test server trusts the loopback, so it is ignored there).
#include <gtest/gtest.h>

#include "ods/state/stores.h"
#include "pg_fixture.h"

namespace ods::testing {
namespace {

constexpr char kSecret[] = "Sup3rSecretPw";

void expect_refused_without_secret(const std::string& url, const std::string& code) {
  auto opened = ods::state::open_state_store(url);
  ASSERT_FALSE(opened.has_value()) << url;
  EXPECT_EQ(opened.error().code, code) << opened.error().message;
  EXPECT_EQ(opened.error().message.find(kSecret), std::string::npos) << opened.error().message;
  EXPECT_EQ(opened.error().message.find("p@ss"), std::string::npos) << opened.error().message;
  EXPECT_EQ(ods::state::redact_state_url(url).find(kSecret), std::string::npos) << ods::state::redact_state_url(url);
}

TEST(PostgresSecrets, WrongPortOrHostNeverEchoesThePassword) {
  const std::string secret = kSecret;
  expect_refused_without_secret("postgresql://postgres:" + secret + "@127.0.0.1:1/ods?connect_timeout=3",
                                "unavailable");
  expect_refused_without_secret("postgres://postgres:" + secret + "@no-such-host.invalid:5432/ods", "unavailable");
  expect_refused_without_secret("postgresql://postgres@127.0.0.1:1/ods?password=" + secret, "unavailable");
  expect_refused_without_secret("host=127.0.0.1 port=1 user=postgres password=" + secret + " dbname=ods",
                                "unavailable");
  expect_refused_without_secret("host=127.0.0.1 port=1 password='" + secret + " x' dbname=ods", "unavailable");
  expect_refused_without_secret("postgresql://postgres:p%40ss" + secret + "@127.0.0.1:1/ods", "unavailable");
}

TEST(PostgresSecrets, UnparsableStringsNeverEchoThePassword) {
  const std::string secret = kSecret;
  expect_refused_without_secret("host=127.0.0.1 password=" + secret + " nonsense", "invalid_url");
  expect_refused_without_secret("host=127.0.0.1 password='" + secret, "invalid_url");
  expect_refused_without_secret("postgresql://postgres:" + secret + "@127.0.0.1:1/ods?bogus_option=1", "invalid_url");
}

TEST(PostgresSecrets, WrongDatabaseOnARealServerNamesItWithoutThePassword) {
  PostgresServer* server = shared_postgres();
  ASSERT_NE(server, nullptr);
  const std::string url = "postgresql://postgres:" + std::string(kSecret) +
                          "@127.0.0.1:" + std::to_string(server->port()) + "/no_such_database";
  auto opened = ods::state::open_state_store(url);
  ASSERT_FALSE(opened.has_value());
  EXPECT_EQ(opened.error().code, "unavailable");
  EXPECT_NE(opened.error().message.find("no_such_database"), std::string::npos) << opened.error().message;
  EXPECT_EQ(opened.error().message.find(kSecret), std::string::npos) << opened.error().message;
}

TEST(PostgresSecrets, APasswordInTheUrlWorksAndIsNotStored) {
  const std::string dsn = fresh_database();
  const std::string db = dsn.substr(dsn.find("dbname=") + 7);
  const std::string url = "postgresql://postgres:" + std::string(kSecret) +
                          "@127.0.0.1:" + std::to_string(shared_postgres()->port()) + "/" + db;
  auto opened = ods::state::open_state_store(url);
  ASSERT_TRUE(opened.has_value()) << opened.error().message;
  ASSERT_TRUE((*opened)->commit("shop/prod", std::nullopt, "run-1", node_document(10, "run-1")));
  ProcessResult dump = shared_postgres()->psql(
      "SELECT string_agg(t::text, ' ') FROM (SELECT * FROM snapshots) t UNION ALL "
      "SELECT string_agg(s::text, ' ') FROM (SELECT * FROM schema_migrations) s UNION ALL "
      "SELECT string_agg(d::text, ' ') FROM (SELECT * FROM documents) d",
      db);
  ASSERT_EQ(dump.exit_code, 0) << dump.errors;
  EXPECT_EQ(dump.output.find(kSecret), std::string::npos);
  EXPECT_EQ(ods::state::redact_state_url(url).find(kSecret), std::string::npos);
}

}  // namespace
}  // namespace ods::testing
