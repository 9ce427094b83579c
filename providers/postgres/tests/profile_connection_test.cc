// A dbt-postgres profile output as the native probe's connection (profile_connection.h).
#include "ods/postgres/profile_connection.h"

#include <gtest/gtest.h>

namespace ods::postgres {
namespace {

using Fields = std::map<std::string, std::string>;

Fields minimal() {
  return {{"type", "postgres"}, {"host", "127.0.0.1"}, {"port", "5432"},   {"user", "ods"},
          {"password", "pw"},   {"dbname", "shop"},    {"schema", "main"}, {"threads", "2"}};
}

TEST(ProfileConnection, TheFieldsDbtPostgresConnectsWith) {
  auto c = connection_from_profile("pg", minimal());
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(c->conninfo,
            "host='127.0.0.1' port='5432' user='ods' password='pw' dbname='shop' connect_timeout='10' "
            "application_name='dbt'");
  EXPECT_EQ(c->role, "");
  EXPECT_EQ(c->target, (std::map<std::string, std::string>{
                           {"schema", "main"}, {"database", "shop"}, {"name", "pg"}, {"type", "postgres"}}));
}

TEST(ProfileConnection, AliasesAndOptionalFields) {
  Fields f = minimal();
  f.erase("password");
  f.erase("dbname");
  f["pass"] = "it's\\";
  f["database"] = "other";
  f["sslmode"] = "require";
  f["sslrootcert"] = "/ca.pem";
  f["connect_timeout"] = "3";
  f["application_name"] = "mine";
  f["keepalives_idle"] = "30";
  f["search_path"] = "a, b";
  f["role"] = "reader";
  f["retries"] = "3";
  auto c = connection_from_profile("prod", f);
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(c->conninfo,
            "host='127.0.0.1' port='5432' user='ods' password='it\\'s\\\\' dbname='other' connect_timeout='3' "
            "sslmode='require' sslrootcert='/ca.pem' application_name='mine' keepalives_idle='30' "
            "options='-c search_path=a,\\\\ b'");
  EXPECT_EQ(c->role, "reader");
  EXPECT_EQ(c->target.at("database"), "other");
}

TEST(ProfileConnection, RefusalsSayWhyAndNeverQuoteThePassword) {
  Fields f = minimal();
  f["type"] = "duckdb";
  EXPECT_EQ(connection_from_profile("dev", f).error(), "target 'dev' is of type 'duckdb', not postgres");
  for (const char* required : {"host", "port", "user", "password", "dbname", "schema"}) {
    f = minimal();
    f.erase(required);
    auto c = connection_from_profile("pg", f);
    ASSERT_FALSE(c) << required;
    EXPECT_EQ(c.error(), "target 'pg' has no '" + std::string(required) + "'");
  }
  f = minimal();
  f["port"] = "pw";
  EXPECT_EQ(connection_from_profile("pg", f).error(), "target 'pg': port is not a whole number");
  f = minimal();
  f["connect_timeout"] = "soon";
  EXPECT_EQ(connection_from_profile("pg", f).error(), "target 'pg': connect_timeout is not a whole number");
}

}  // namespace
}  // namespace ods::postgres
