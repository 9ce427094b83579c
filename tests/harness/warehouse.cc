#include "harness/warehouse.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "harness/postgres_server.h"
#include "harness/postgres_shop.h"  // shop_connection_env

namespace ods::testing {

namespace fs = std::filesystem;

namespace {

ProcessResult failed(const std::string& why) { return ProcessResult{1, "", why}; }

// The `dev` target: shop.duckdb in the project dir.
class DuckDbWarehouse final : public Warehouse {
 public:
  std::string name() const override { return "DuckDb"; }
  std::string unavailable() const override { return ""; }
  std::string content_origin() const override { return "duckdb_content"; }
  bool runs_python_models() const override { return true; }
  std::vector<std::string> target_args() const override { return {}; }
  void connect(DbtProject&) const override {}
  ProcessResult generate_data(const DbtProject& p, const std::vector<std::string>& args) const override {
    return p.generate_data(args);
  }
  ProcessResult sql(const DbtProject& p, const std::string& statements) const override { return p.sql(statements); }
  std::string recreate_customers_sql() const override {
    return "create table raw.customers_copy as select * from raw.customers; drop table raw.customers; "
           "alter table raw.customers_copy rename to customers";
  }
  // dbt-duckdb cannot open a database file in a directory that does not exist.
  std::string unreachable_env() const override { return "SHOP_DUCKDB_PATH=/nonexistent-ods-test-dir/shop.duckdb"; }
  std::string unreachable_error() const override { return "nonexistent-ods-test-dir"; }
  void save_baseline() override {}
  void begin_scenario() override {}
  void end_scenario() override {}
};

// The `pg` target on one private server for the whole process.
class PostgresWarehouse final : public Warehouse {
 public:
  PostgresWarehouse() {
    auto started = PostgresServer::start({.user = "postgres", .database = kDatabase});
    if (started) {
      server_ = std::move(*started);
    } else {
      unavailable_ = started.error();
    }
  }

  std::string name() const override { return "Postgres"; }
  std::string unavailable() const override { return unavailable_; }
  std::string content_origin() const override { return "postgres_content"; }
  bool runs_python_models() const override { return false; }
  std::vector<std::string> target_args() const override { return {"--target", "pg"}; }

  // ODS_RELATION_IDENTITY=off: each scenario's database is a template copy of the baseline's,
  // whose statistics start at zero, so every table's identity would differ from the baseline's
  // record and build (docs/warehouses.md, "Relation identity"); relation_identity_test.cc tests
  // identities on a database of its own.
  void connect(DbtProject& p) const override {
    if (!server_) return;
    p.add_env({"ODS_RELATION_IDENTITY=off"});
    p.add_env(shop_connection_env(*server_, kDatabase));
  }

  ProcessResult generate_data(const DbtProject& p, const std::vector<std::string>& args) const override {
    if (!server_) return failed(unavailable_);
    std::vector<std::string> all{"--postgres", server_->dsn()};
    all.insert(all.end(), args.begin(), args.end());
    return p.generate_data(all);
  }

  ProcessResult sql(const DbtProject&, const std::string& statements) const override {
    if (!server_) return failed(unavailable_);
    return server_->psql(statements, kDatabase);
  }

  // PostgreSQL refuses to drop a table that views depend on: CASCADE drops dbt's
  // stg_customers view with it, as a real re-load with DROP ... CASCADE would.
  std::string recreate_customers_sql() const override {
    return "create table raw.customers_copy as select * from raw.customers; drop table raw.customers cascade; "
           "alter table raw.customers_copy rename to customers";
  }

  // Nothing listens on port 1 of the loopback: the connection is refused.
  std::string unreachable_env() const override { return "SHOP_PG_PORT=1"; }
  std::string unreachable_error() const override { return "Connection refused"; }

  void save_baseline() override { admin("alter database " + std::string(kDatabase) + " rename to " + kBaseline); }
  void begin_scenario() override { admin("create database " + std::string(kDatabase) + " template " + kBaseline); }
  void end_scenario() override { admin("drop database if exists " + std::string(kDatabase) + " with (force)"); }

 private:
  static constexpr const char* kDatabase = "shop";
  static constexpr const char* kBaseline = "shop_baseline";

  void admin(const std::string& statement) const {
    if (!server_) return;
    ProcessResult r = server_->psql(statement, "postgres");
    if (r.exit_code != 0) ADD_FAILURE() << statement << " failed:\n" << r.errors << "\n" << server_->log_tail();
  }

  std::unique_ptr<PostgresServer> server_;
  std::string unavailable_;
};

}  // namespace

Warehouse& duckdb_warehouse() {
  static DuckDbWarehouse w;
  return w;
}

Warehouse& postgres_warehouse() {
  static PostgresWarehouse w;
  return w;
}

std::string write_dbt_wrapper(const DbtProject& p, const std::string& name, const std::string& subcommand,
                              const std::string& before, const std::string& after) {
  fs::path script = p.dir() / name;
  const std::string dbt = (venv_bin() / "dbt").string();
  {
    std::ofstream out(script);
    out << "#!/bin/sh\nmatch=0\nfor a in \"$@\"; do if [ \"$a\" = " << subcommand << " ]; then match=1; fi; done\n"
        << "if [ $match = 1 ]; then\n  " << (before.empty() ? ":" : before) << "\n";
    if (!after.empty()) out << "  " << dbt << " \"$@\"\n  code=$?\n  " << after << "\n  exit $code\n";
    out << "fi\nexec " << dbt << " \"$@\"\n";
  }
  fs::permissions(script, fs::perms::owner_all);
  return script.string();
}

}  // namespace ods::testing
