// `ods state run` on real Apache Iceberg tables (Spark inside dbt, dbt-spark's session mode,
// examples/lakehouse's `iceberg` target: a Hadoop catalog `iceberg` on local files beside the
// Delta session catalog). Sources: six Iceberg tables, a view and one Delta table; one model
// (a view: cheap to build) reading each. Each step changes the lake with a Spark process of its
// own (scripts/lake.py; Derby takes one process at a time), then runs ods and asserts every
// node's action and reason. Each table has its own reader, so independent changes share a step.
//
// The scenarios the Delta suite has, on Iceberg: compaction (rewrite_data_files) and a DELETE
// that matches no row are reused; an append, an INSERT OVERWRITE writing 0 rows, a table dropped
// and created again with the same rows, and a rollback to an older snapshot build their
// readers; a view source is unknown. The Delta table beside them shows the probe choosing each
// table's provider by its format. Which snapshot of which summary changes data is the unit
// cases' (providers/iceberg/tests/snapshot_cases). The Spark environment comes from
// scripts/spark-env.sh (the spark_env ctest fixture builds it; here it is found in the cache).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <regex>

#include "delta/spark_env.h"
#include "harness/dbt_project.h"

namespace ods::testing {
namespace {

namespace fs = std::filesystem;

// model -> the source it reads
const std::map<std::string, std::string> kModels = {{"stg_orders", "orders"},           {"stg_customers", "customers"},
                                                    {"stg_payments", "payments"},       {"stg_refunds", "refunds"},
                                                    {"stg_shipments", "shipments"},     {"stg_fx_rates", "fx_rates"},
                                                    {"stg_open_orders", "open_orders"}, {"stg_ledger", "ledger"}};
const std::vector<std::string> kIcebergTables = {"orders", "customers", "payments", "refunds", "shipments", "fx_rates"};

std::string source_id(const std::string& table) {
  return table == "open_orders" || table == "ledger" ? "source.lakehouse.raw." + table
                                                     : "source.lakehouse.ice." + table;
}

class IcebergLake : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    SparkEnv env;
    find_spark_env(env);
    if (::testing::Test::HasFatalFailure()) return;
    env_ = new SparkEnv(env);
    project_ = new DbtProject("lakehouse");
    fs::remove_all(project_->dir() / "models");
    fs::create_directories(project_->dir() / "models");
    project_->replace_in("dbt_project.yml", "+materialized: table", "+materialized: view");
    std::string sources = "version: 2\nsources:\n  - name: ice\n    schema: iceberg.raw\n    tables:\n";
    for (const auto& t : kIcebergTables) sources += "      - name: " + t + "\n";
    sources += "  - name: raw\n    schema: raw\n    tables:\n      - name: open_orders\n      - name: ledger\n";
    project_->write("models/sources.yml", sources);
    for (const auto& [model, table] : kModels)
      project_->write("models/" + model + ".sql",
                      "select * from {{ source('" +
                          std::string(table == "open_orders" || table == "ledger" ? "raw" : "ice") + "', '" + table +
                          "') }}\n");
    project_->add_env({"ODS_LAKE_DIR=" + (project_->dir() / "lake").string(), "ODS_DELTA_JARS=" + env.delta_jars,
                       "ODS_ICEBERG_JARS=" + env.iceberg_jars, "DBT_SEND_ANONYMOUS_USAGE_STATS=false",
                       "DO_NOT_TRACK=1"});
    lake({"create namespace iceberg.raw", "create database if not exists raw",
          "create table iceberg.raw.orders (id int, customer_id int, amount int, status string) using iceberg",
          "insert into iceberg.raw.orders values (1, 1, 10, 'open'), (2, 1, 20, 'shipped')",
          // two inserts: two files, so that rewrite_data_files has something to compact
          "create table iceberg.raw.customers (id int, name string) using iceberg",
          "insert into iceberg.raw.customers values (1, 'ada'), (2, 'grace')",
          "insert into iceberg.raw.customers values (3, 'edsger')",
          "create table iceberg.raw.payments (id int, order_id int, amount int) using iceberg",
          "insert into iceberg.raw.payments values (1, 1, 10), (2, 2, 20)",
          "create table iceberg.raw.refunds (id int, order_id int, amount int) using iceberg",
          "insert into iceberg.raw.refunds values (1, 2, 5)",
          "create table iceberg.raw.shipments (id int, order_id int, carrier string) using iceberg",
          "insert into iceberg.raw.shipments values (1, 2, 'post')",
          // two snapshots: the rollback goes back to the first
          "create table iceberg.raw.fx_rates (currency string, rate double) using iceberg",
          "insert into iceberg.raw.fx_rates values ('EUR', 1.0)",
          "insert into iceberg.raw.fx_rates values ('USD', 1.1)",
          "create view raw.open_orders as select * from iceberg.raw.orders where status = 'open'",
          "create table raw.ledger (id int, amount int) using delta", "insert into raw.ledger values (1, 100)"});
  }

  static void TearDownTestSuite() {
    delete project_;
    delete env_;
  }

  // scripts/lake.py sql with the Spark environment's python (a Spark process of its own).
  static void lake(std::vector<std::string> statements) {
    std::vector<std::string> argv{env_->bin("python").string(), "scripts/lake.py", "sql"};
    argv.insert(argv.end(), statements.begin(), statements.end());
    auto started = std::chrono::steady_clock::now();
    ProcessResult r = run_process(argv, project_->dir(), project_->env());
    ASSERT_EQ(r.exit_code, 0) << r.output << r.errors;
    std::printf("lake.py (%zu statements): %.0f s\n", statements.size(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    std::fflush(stdout);
  }

  // `ods state run --target iceberg --format json`; entries by node name.
  static std::map<std::string, nlohmann::json> run(nlohmann::json* document = nullptr) {
    auto started = std::chrono::steady_clock::now();
    ProcessResult r = project_->ods({"state", "run", "--format", "json", "--target", "iceberg", "--profiles-dir",
                                     project_->dir().string(), "--dbt", env_->bin("dbt").string()});
    std::printf("ods state run: %.0f s\n",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    std::fflush(stdout);
    auto doc = nlohmann::json::parse(r.output, nullptr, false);
    EXPECT_FALSE(doc.is_discarded()) << "stdout:\n" << r.output << "\nstderr:\n" << r.errors;
    EXPECT_EQ(r.exit_code, 0) << r.errors;
    std::map<std::string, nlohmann::json> entries;
    if (doc.is_discarded()) return entries;
    for (const auto& e : doc.at("plan").at("entries")) entries[e.at("name").get<std::string>()] = e;
    if (document) *document = doc;
    return entries;
  }

  static void expect_decisions(const std::map<std::string, nlohmann::json>& entries,
                               const std::map<std::string, std::string>& expected) {
    ASSERT_EQ(entries.size(), kModels.size());
    for (const auto& [model, _] : kModels) {
      ASSERT_TRUE(entries.contains(model)) << model;
      ASSERT_TRUE(expected.contains(model)) << model;
      EXPECT_EQ(decision(entries.at(model)), expected.at(model)) << entries.at(model).dump(2);
    }
  }

  static std::string version_of(const nlohmann::json& e, const std::string& table) {
    const nlohmann::json* ev = evidence_about(e, "source_data_version", source_id(table));
    return ev ? ev->at("value").get<std::string>() : "";
  }

  static SparkEnv* env_;
  static DbtProject* project_;
  static std::map<std::string, std::string> versions_;  // table -> version seen in step 2
};

SparkEnv* IcebergLake::env_ = nullptr;
DbtProject* IcebergLake::project_ = nullptr;
std::map<std::string, std::string> IcebergLake::versions_;

const std::regex kIcebergVersion("schema-[0-9a-f]{16}/[0-9]+");
const std::regex kDeltaVersion("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/[0-9]+");

TEST_F(IcebergLake, Step1FirstRunBuildsEverything) {
  auto entries = run();
  std::map<std::string, std::string> expected;
  for (const auto& [model, _] : kModels) expected[model] = "build:never_built";
  expect_decisions(entries, expected);
}

// Compaction of customers (rewrite_data_files: a `replace` snapshot) and a DELETE on payments
// that matches no row (a `delete` snapshot that adds and removes nothing): both write a
// snapshot after the data change, and every reader of a table is reused.
TEST_F(IcebergLake, Step2CompactionAndANoOpDeleteAreReused) {
  lake({"call iceberg.system.rewrite_data_files(table => 'raw.customers', options => map('min-input-files', '2'))",
        "delete from iceberg.raw.payments where id = 99"});
  nlohmann::json doc;
  auto entries = run(&doc);
  expect_decisions(entries, {{"stg_orders", "reuse:unchanged"},
                             {"stg_customers", "reuse:unchanged"},
                             {"stg_payments", "reuse:unchanged"},
                             {"stg_refunds", "reuse:unchanged"},
                             {"stg_shipments", "reuse:unchanged"},
                             {"stg_fx_rates", "reuse:unchanged"},
                             {"stg_open_orders", "build:missing_data_evidence"},
                             {"stg_ledger", "reuse:unchanged"}});
  for (const auto& table : kIcebergTables) {
    const auto& e = entries.at("stg_" + table);
    std::string v = version_of(e, table);
    EXPECT_TRUE(std::regex_match(v, kIcebergVersion)) << table << ": " << v;
    const nlohmann::json* ev = evidence_about(e, "source_data_version", source_id(table));
    ASSERT_NE(ev, nullptr) << e.dump(2);
    EXPECT_EQ(ev->at("origin"), "iceberg_snapshots");
    EXPECT_EQ(ev->at("exactness"), "exact");
    EXPECT_NE(all_evidence_of(e, "source_commit").find(", append at 20"), std::string::npos) << e.dump(2);
    versions_[table] = v;
  }
  // The snapshots written after the data change were read and passed over.
  EXPECT_NE(all_evidence_of(entries.at("stg_customers"), "source_commit_ignored")
                .find("a replace (compaction or rewrite) that kept the row counts"),
            std::string::npos)
      << entries.at("stg_customers").dump(2);
  EXPECT_NE(all_evidence_of(entries.at("stg_payments"), "source_commit_ignored")
                .find("delete added and removed no rows or files"),
            std::string::npos)
      << entries.at("stg_payments").dump(2);
  // The Delta table beside them went to the Delta provider, chosen by its format.
  std::string ledger = version_of(entries.at("stg_ledger"), "ledger");
  EXPECT_TRUE(std::regex_match(ledger, kDeltaVersion)) << ledger;
  versions_["ledger"] = ledger;
  EXPECT_NE(first_reason_message(entries.at("stg_open_orders")).find("not a Delta or Iceberg table"), std::string::npos)
      << first_reason_message(entries.at("stg_open_orders"));
  // Latency per source, as on the other warehouses (the run ledger, the operator's histogram).
  const auto& seconds = doc.at("run").at("probe_seconds");
  for (const auto& table : kIcebergTables)
    EXPECT_GT(seconds.value(source_id(table), 0.0), 0.0) << table << ": " << seconds;
}

// An append, an INSERT OVERWRITE writing 0 rows, a table dropped and created again with the
// same rows, and a rollback to the table's first snapshot: their readers build, each version
// moved; the untouched tables' readers are reused.
TEST_F(IcebergLake, Step3DataChangesRecreationAndARollbackBuildTheirReaders) {
  lake({"insert into iceberg.raw.orders values (5, 2, 50, 'open')",
        "insert overwrite iceberg.raw.refunds select * from iceberg.raw.refunds where false",
        "drop table iceberg.raw.shipments purge",
        "create table iceberg.raw.shipments (id int, order_id int, carrier string) using iceberg",
        "insert into iceberg.raw.shipments values (1, 2, 'post')",
        "call iceberg.system.rollback_to_snapshot('raw.fx_rates', {first_snapshot:iceberg.raw.fx_rates})"});
  auto entries = run();
  expect_decisions(entries, {{"stg_orders", "build:new_upstream_data"},
                             {"stg_customers", "reuse:unchanged"},
                             {"stg_payments", "reuse:unchanged"},
                             {"stg_refunds", "build:new_upstream_data"},
                             {"stg_shipments", "build:new_upstream_data"},
                             {"stg_fx_rates", "build:new_upstream_data"},
                             {"stg_open_orders", "build:missing_data_evidence"},
                             {"stg_ledger", "reuse:unchanged"}});
  for (const char* table : {"orders", "refunds", "shipments", "fx_rates"}) {
    const auto& e = entries.at(std::string("stg_") + table);
    std::string now = version_of(e, table);
    EXPECT_TRUE(std::regex_match(now, kIcebergVersion)) << table << ": " << now;
    EXPECT_NE(now, versions_[table]) << table;
    EXPECT_NE(first_reason_message(e).find("moved from " + versions_[table] + " to " + now), std::string::npos)
        << table << ": " << first_reason_message(e);
  }
  for (const char* table : {"customers", "payments"})
    EXPECT_EQ(version_of(entries.at(std::string("stg_") + table), table), versions_[table]) << table;
  EXPECT_EQ(version_of(entries.at("stg_ledger"), "ledger"), versions_["ledger"]);
  // The overwrite's snapshot is the version: it deleted the table's rows.
  EXPECT_NE(all_evidence_of(entries.at("stg_refunds"), "source_commit").find("delete recorded deleted-data-files 1"),
            std::string::npos)
      << entries.at("stg_refunds").dump(2);
  // The rollback went back to the first append; the snapshot after it left the current line.
  EXPECT_TRUE(all_evidence_of(entries.at("stg_fx_rates"), "source_commit_ignored").empty());
}

}  // namespace
}  // namespace ods::testing
