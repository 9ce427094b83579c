#include "harness/postgres_shop.h"

#include "harness/shop_baseline.h"  // ODS_ASSERT_OK

namespace ods::testing {

std::vector<std::string> shop_connection_env(const PostgresServer& server, const std::string& database) {
  return {"SHOP_PG_HOST=127.0.0.1", "SHOP_PG_PORT=" + std::to_string(server.port()), "SHOP_PG_USER=" + server.user(),
          "SHOP_PG_DBNAME=" + database};
}

PostgresServer* PostgresShopFixture::load_shop_raw_tables(const std::string& loaded) {
  PostgresServer* pg = suite_server(loaded);
  if (!pg) return nullptr;
  DbtProject loader("shop");
  ProcessResult r = loader.generate_data({"--postgres", pg->dsn()});
  EXPECT_EQ(r.exit_code, 0) << r.output << r.errors;
  return r.exit_code == 0 ? pg : nullptr;
}

void PostgresShopFixture::SetUp() {
  pg_ = suite_server(loaded_);
  ASSERT_NE(pg_, nullptr);
  ODS_ASSERT_OK(pg_->psql("create database " + std::string(kDatabase) + " template " + loaded_, "postgres"));
  project_.emplace("shop");
  project_->add_env(shop_connection_env(*pg_, kDatabase));
  project_->add_env(env_);
}

void PostgresShopFixture::TearDown() {
  project_.reset();
  if (pg_) (void)pg_->psql("drop database if exists " + std::string(kDatabase) + " with (force)", "postgres");
}

ProcessResult PostgresShopFixture::ods_state_run(const std::vector<std::string>& args) const {
  std::vector<std::string> all{"state", "run", "--target", "pg", "--profiles-dir", project_->dir().string()};
  all.insert(all.end(), args.begin(), args.end());
  return project_->ods(all);
}

nlohmann::json PostgresShopFixture::run_plan(const std::vector<std::string>& args) const {
  std::vector<std::string> all{"--format", "json"};
  all.insert(all.end(), args.begin(), args.end());
  const ProcessResult r = ods_state_run(all);
  EXPECT_EQ(r.exit_code, 0) << r.output << r.errors;
  const nlohmann::json doc = output_json(r);
  return doc.is_object() ? doc.value("plan", nlohmann::json::object()) : nlohmann::json::object();
}

}  // namespace ods::testing
