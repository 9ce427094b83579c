// `ods state run` on a real Delta Lake (Spark inside dbt, dbt-spark's session mode) over
// examples/lakehouse: five Delta tables, a view and a parquet table as sources, one model
// reading each. Each step changes the lake with a Spark process of its own (scripts/lake.py;
// Derby takes one process at a time, so never while dbt runs), then runs ods and asserts every
// node's action and reason. Independent changes on different tables share a step: each table
// has its own reader. The Spark environment comes from scripts/spark-env.sh (the spark_env
// ctest fixture builds it; here it is found in the cache).
//
// One real-engine proof per kind of scenario: a maintenance commit reused (OPTIMIZE), a data
// change built (INSERT), a table dropped and created again built, a parquet table by content,
// a view unknown, a reused node's relation gone, a failed probe. Which commit of which
// operation and metrics changes data is the unit cases' (providers/delta/tests/commit_cases,
// one per operation and metric shape; delta_versions_test.cc for the evidence): every other
// Spark statement here costs the suite seconds to tens of seconds and proves nothing more.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <regex>

#include "delta/spark_env.h"
#include "harness/dbt_project.h"

namespace ods::testing {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kModels = {"stg_orders",    "stg_customers", "stg_payments",   "stg_refunds",
                                          "stg_shipments", "stg_fx_rates",  "open_order_list"};

class Lakehouse : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    SparkEnv env;
    find_spark_env(env);
    if (::testing::Test::HasFatalFailure()) return;
    spark_env_ = new fs::path(env.dir);
    const std::string& jars = env.delta_jars;
    project_ = new DbtProject("lakehouse");
    project_->add_env({"ODS_LAKE_DIR=" + (project_->dir() / "lake").string(), "ODS_DELTA_JARS=" + jars,
                       "DBT_SEND_ANONYMOUS_USAGE_STATS=false", "DO_NOT_TRACK=1"});
    lake({"create"});
  }

  static void TearDownTestSuite() {
    delete project_;
    delete spark_env_;
  }

  // scripts/lake.py with the Spark environment's python (a Spark process of its own).
  static void lake(std::vector<std::string> args) {
    std::vector<std::string> argv{(*spark_env_ / "venv" / "bin" / "python").string(), "scripts/lake.py"};
    argv.insert(argv.end(), args.begin(), args.end());
    auto started = std::chrono::steady_clock::now();
    ProcessResult r = run_process(argv, project_->dir(), project_->env());
    ASSERT_EQ(r.exit_code, 0) << r.output << r.errors;
    std::printf("lake.py %s: %.0f s\n", args[0].c_str(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    std::fflush(stdout);
  }

  // `ods state run --format json` with the Spark environment's dbt; entries by node name.
  static std::map<std::string, nlohmann::json> run(nlohmann::json* document = nullptr, std::string* errors = nullptr) {
    auto started = std::chrono::steady_clock::now();
    ProcessResult r = project_->ods({"state", "run", "--format", "json", "--profiles-dir", project_->dir().string(),
                                     "--dbt", (*spark_env_ / "venv" / "bin" / "dbt").string()});
    std::printf("ods state run: %.0f s\n",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    std::fflush(stdout);
    if (errors) *errors = r.errors;
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
    for (const auto& model : kModels) {
      ASSERT_TRUE(entries.contains(model)) << model;
      ASSERT_TRUE(expected.contains(model)) << model;
      EXPECT_EQ(decision(entries.at(model)), expected.at(model)) << entries.at(model).dump(2);
    }
  }

  static std::string version_of(const nlohmann::json& e, const std::string& source) {
    const nlohmann::json* ev = evidence_about(e, "source_data_version", "source.lakehouse.raw." + source);
    return ev ? ev->at("value").get<std::string>() : "";
  }

  static fs::path* spark_env_;
  static DbtProject* project_;
  static std::map<std::string, std::string> versions_;  // source -> version seen in step 2
};

fs::path* Lakehouse::spark_env_ = nullptr;
DbtProject* Lakehouse::project_ = nullptr;
std::map<std::string, std::string> Lakehouse::versions_;

const std::regex kDeltaVersion("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/[0-9]+");

// gtest runs the steps in this order; each starts from the lake and state the previous left.
TEST_F(Lakehouse, Step1FirstRunBuildsEverything) {
  auto entries = run();
  std::map<std::string, std::string> expected;
  for (const auto& m : kModels) expected[m] = "build:never_built";
  expect_decisions(entries, expected);
}

// Maintenance on one table (OPTIMIZE compacts its 3 files into 1: a real commit after its data
// change), nothing on the others: every table's reader is reused; one reused node's relation is
// dropped. VACUUM, SET TBLPROPERTIES, COMMENT ON TABLE and the MERGE, UPDATE and DELETE that
// match no row are the unit cases' (vacuum_*, set_tblproperties, *_no_row; Delta 4.0 writes no
// commit at all for the last three).
TEST_F(Lakehouse, Step2MaintenanceAndNothingAtAllAreReused) {
  lake({"sql", "optimize raw.orders",          // 3 files -> 1: a commit
        "drop table analytics.stg_refunds"});  // a reused node's relation gone
  nlohmann::json doc;
  auto entries = run(&doc);
  expect_decisions(entries, {{"stg_orders", "reuse:unchanged"},
                             {"stg_customers", "reuse:unchanged"},
                             {"stg_payments", "reuse:unchanged"},
                             {"stg_refunds", "build:relation_missing"},
                             {"stg_shipments", "reuse:unchanged"},
                             {"stg_fx_rates", "reuse:unchanged"},
                             {"open_order_list", "build:missing_data_evidence"}});
  // The version names the newest data-change commit; the OPTIMIZE after it was written (so the
  // reuse is the rule's doing) and passed over.
  std::map<std::string, std::string> newest_data_commit = {
      {"orders", "/3"}, {"customers", "/2"}, {"payments", "/1"}, {"refunds", "/1"}, {"shipments", "/2"}};
  for (const auto& [table, suffix] : newest_data_commit) {
    const auto& e = entries.at("stg_" + table);
    std::string v = version_of(e, table);
    EXPECT_TRUE(std::regex_match(v, kDeltaVersion)) << table << ": " << v;
    EXPECT_TRUE(v.ends_with(suffix)) << table << ": " << v;
    const nlohmann::json* ev = evidence_about(e, "source_data_version", "source.lakehouse.raw." + table);
    ASSERT_NE(ev, nullptr);
    EXPECT_EQ(ev->at("origin"), "delta_history");
    EXPECT_EQ(ev->at("exactness"), "exact");
    EXPECT_NE(all_evidence_of(e, "source_commit").find(" at 20"), std::string::npos) << "the commit time is kept";
    versions_[table] = v;
  }
  for (const char* reused : {"stg_orders", "stg_customers", "stg_payments", "stg_shipments", "stg_fx_rates"}) {
    const auto& e = entries.at(reused);
    const nlohmann::json* exists = evidence_about(e, "relation_exists", e.at("id").get<std::string>());
    ASSERT_NE(exists, nullptr) << e.dump(2);
    EXPECT_EQ(exists->at("value"), "true");
  }
  EXPECT_NE(all_evidence_of(entries.at("stg_orders"), "source_commit_ignored").find("version 4 (OPTIMIZE"),
            std::string::npos)
      << entries.at("stg_orders").dump(2);
  for (const char* untouched : {"stg_customers", "stg_payments", "stg_shipments"})
    EXPECT_TRUE(all_evidence_of(entries.at(untouched), "source_commit_ignored").empty()) << untouched;

  const nlohmann::json* rates =
      evidence_about(entries.at("stg_fx_rates"), "source_data_version", "source.lakehouse.raw.fx_rates");
  ASSERT_NE(rates, nullptr);
  EXPECT_EQ(rates->at("origin"), "spark_content");
  EXPECT_TRUE(std::regex_match(rates->at("value").get<std::string>(), std::regex("rows=2;hash=-?[0-9]+")))
      << rates->dump();
  versions_["fx_rates"] = rates->at("value").get<std::string>();
  EXPECT_NE(first_reason_message(entries.at("open_order_list")).find("not a Delta or Iceberg table"), std::string::npos)
      << first_reason_message(entries.at("open_order_list"));
  // Latency per source, as on the other warehouses (the run ledger, the operator's histogram).
  const auto& seconds = doc.at("run").at("probe_seconds");
  for (const char* table : {"orders", "customers", "payments", "refunds", "shipments", "fx_rates"})
    EXPECT_GT(seconds.value(std::string("source.lakehouse.raw.") + table, 0.0), 0.0) << table << ": " << seconds;
}

// A data change on a Delta table, a Delta table dropped and created again with the same rows,
// and a parquet table's rows changed: their readers build; the untouched tables' readers are
// reused. INSERT OVERWRITE and CREATE OR REPLACE TABLE writing 0 rows, and RESTORE, are the
// unit cases' (write_overwrite_zero_rows, create_or_replace_zero_rows, restore_*; the version a
// RESTORE names: DeltaVersions.ARestoreIsANewVersionNamedByItsOwnCommit).
TEST_F(Lakehouse, Step3DataChangesBuildTheirReaders) {
  lake({"sql", "insert into raw.orders values (5, 2, 50, 'open')", "drop table raw.refunds",
        "create table raw.refunds (id int, order_id int, amount int) using delta",
        "insert into raw.refunds values (1, 2, 5)",  // the same rows as before, in a new table
        "truncate table raw.fx_rates", "insert into raw.fx_rates values ('EUR', 1.0), ('USD', 1.2)"});
  auto entries = run();
  expect_decisions(entries, {{"stg_orders", "build:new_upstream_data"},
                             {"stg_customers", "reuse:unchanged"},
                             {"stg_payments", "reuse:unchanged"},
                             {"stg_refunds", "build:new_upstream_data"},
                             {"stg_shipments", "reuse:unchanged"},
                             {"stg_fx_rates", "build:new_upstream_data"},
                             {"open_order_list", "build:missing_data_evidence"}});
  for (const char* table : {"orders", "refunds", "fx_rates"}) {
    const auto& e = entries.at(std::string("stg_") + table);
    std::string now =
        table == std::string("fx_rates")
            ? evidence_about(e, "source_data_version", "source.lakehouse.raw.fx_rates")->at("value").get<std::string>()
            : version_of(e, table);
    EXPECT_NE(now, versions_[table]) << table;
    EXPECT_NE(first_reason_message(e).find("moved from " + versions_[table] + " to " + now), std::string::npos)
        << table << ": " << first_reason_message(e);
  }
  for (const char* table : {"customers", "payments", "shipments"})
    EXPECT_EQ(version_of(entries.at(std::string("stg_") + table), table), versions_[table]) << table;
  // Dropped and created again with the same rows: the same version number, a new table id.
  std::string old_refunds = versions_["refunds"], new_refunds = version_of(entries.at("stg_refunds"), "refunds");
  EXPECT_EQ(old_refunds.substr(old_refunds.find('/')), new_refunds.substr(new_refunds.find('/')));
}

TEST_F(Lakehouse, Step4AFailedProbeMakesEverySourceUnknownAndQuotesDbt) {
  project_->replace_in("models/sources.yml", "      - name: fx_rates    # parquet: a content fingerprint",
                       "      - name: fx_rates\n  - name: ghost\n    schema: nowhere\n    tables:\n"
                       "      - name: missing_table");
  std::string errors;
  auto entries = run(nullptr, &errors);
  std::map<std::string, std::string> expected;
  for (const auto& m : kModels) expected[m] = "build:missing_data_evidence";
  expect_decisions(entries, expected);
  EXPECT_NE(errors.find("warning: the probe failed: dbt show failed"), std::string::npos) << errors;
  EXPECT_NE(errors.find("nowhere"), std::string::npos) << "dbt's error names the schema:\n" << errors;
}

}  // namespace
}  // namespace ods::testing
