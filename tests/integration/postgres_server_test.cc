// The PostgreSQL test harness: a private server starts on a free loopback port, answers
// queries, keeps its data and port across a restart, and is gone after stop().
#include "harness/postgres_server.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

namespace ods::testing {
namespace {

TEST(PostgresServer, StartsQueriesRestartsAndStops) {
  auto started = PostgresServer::start({.user = "postgres", .database = "shop"});
  ASSERT_TRUE(started.has_value()) << started.error();
  PostgresServer& server = **started;

  EXPECT_GT(server.port(), 0);
  EXPECT_EQ(server.dsn(), "host=127.0.0.1 port=" + std::to_string(server.port()) + " user=postgres dbname=shop");
  EXPECT_TRUE(server.running());

  ProcessResult one = server.psql("select 1");
  ASSERT_EQ(one.exit_code, 0) << one.errors;
  EXPECT_EQ(one.output, "1\n");

  // Connected to the created database, on the loopback, with the test settings.
  ProcessResult who = server.psql("select current_database(), inet_server_addr(), current_setting('fsync')");
  ASSERT_EQ(who.exit_code, 0) << who.errors;
  EXPECT_EQ(who.output, "shop|127.0.0.1|off\n");

  ProcessResult bad = server.psql("select * from no_such_table");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.errors.find("no_such_table"), std::string::npos) << bad.errors;

  ASSERT_EQ(server.psql("create table kept (v int); insert into kept values (42)").exit_code, 0);
  const int port = server.port();
  auto restarted = server.restart();
  ASSERT_TRUE(restarted.has_value()) << restarted.error();
  EXPECT_EQ(server.port(), port);
  ProcessResult kept = server.psql("select v from kept");
  ASSERT_EQ(kept.exit_code, 0) << kept.errors;
  EXPECT_EQ(kept.output, "42\n");

  auto stopped = server.stop();
  ASSERT_TRUE(stopped.has_value()) << stopped.error();
  EXPECT_FALSE(server.running());
  EXPECT_NE(server.psql("select 1").exit_code, 0) << "the server still answers after stop()";
  EXPECT_TRUE(server.stop().has_value()) << "stop() twice is a no-op";

  const std::filesystem::path dir = server.dir();
  started->reset();
  if (!std::getenv("ODS_KEEP_TEST_DIRS")) {
    EXPECT_FALSE(std::filesystem::exists(dir));
  }
}

TEST(PostgresServer, TwoServersRunSideBySide) {
  auto a = PostgresServer::start();
  ASSERT_TRUE(a.has_value()) << a.error();
  auto b = PostgresServer::start();
  ASSERT_TRUE(b.has_value()) << b.error();
  EXPECT_NE((*a)->port(), (*b)->port());
  ASSERT_EQ((*a)->psql("create table only_in_a (v int)").exit_code, 0);
  EXPECT_NE((*b)->psql("select * from only_in_a").exit_code, 0);
}

}  // namespace
}  // namespace ods::testing
