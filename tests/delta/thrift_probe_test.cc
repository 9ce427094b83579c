// The probe in parts at once (ODS_PROBE_PARTS) through a local Spark Thrift server (dbt-spark's
// `thrift` method; scripts/spark-thrift.sh): it gives the serial probe's versions, so a run
// after a serial one reuses every node with evidence; and a part that fails leaves only the
// sources of its share unknown, its readers building with dbt's error quoted. A small project of
// its own (three Delta tables, a view, a parquet table; views as models, so builds are cheap).
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

const std::map<std::string, std::string> kModels = {
    {"stg_a", "a"}, {"stg_b", "b"}, {"stg_c", "c"}, {"stg_v", "v"}, {"stg_p", "p"}};

class ThriftProbe : public ::testing::Test {
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
    std::string sources = "version: 2\nsources:\n  - name: raw\n    schema: raw\n    tables:\n";
    for (const auto& [model, table] : kModels) {
      sources += "      - name: " + table + "\n";
      project_->write("models/" + model + ".sql", "select * from {{ source('raw', '" + table + "') }}\n");
    }
    project_->write("models/sources.yml", sources);
    lake_ = new fs::path(project_->dir() / "lake");
    ProcessResult started = run_process({script(), "start", lake_->string()}, source_dir());
    ASSERT_EQ(started.exit_code, 0) << started.errors;
    std::string port = without_trailing_newlines(started.output);
    port = port.substr(port.rfind('\n') + 1);
    project_->add_env({"ODS_LAKE_DIR=" + lake_->string(), "ODS_DELTA_JARS=" + env.delta_jars, "ODS_THRIFT_PORT=" + port,
                       "DBT_SEND_ANONYMOUS_USAGE_STATS=false", "DO_NOT_TRACK=1"});
    ProcessResult made = run_process(
        {env.bin("python").string(), "scripts/lake.py", "sql", "create database if not exists raw",
         "create table raw.a using delta as select 1 as id", "create table raw.b using delta as select 2 as id",
         "create table raw.c using delta as select 3 as id", "create view raw.v as select * from raw.a",
         "create table raw.p using parquet as select 4 as id"},
        project_->dir(), project_->env());
    ASSERT_EQ(made.exit_code, 0) << made.output << made.errors;
  }

  static void TearDownTestSuite() {
    if (lake_) {
      ProcessResult stopped = run_process({script(), "stop", lake_->string()}, source_dir());
      EXPECT_EQ(stopped.exit_code, 0) << stopped.errors;
    }
    delete project_;
    delete env_;
    delete lake_;
  }

  static std::string script() { return (source_dir() / "scripts" / "spark-thrift.sh").string(); }

  // `ods state run --target thrift` with the probe in `parts`; entries by node name.
  static std::map<std::string, nlohmann::json> run(int parts, std::string* errors = nullptr) {
    auto started = std::chrono::steady_clock::now();
    DbtProject& p = *project_;
    p.add_env({"ODS_PROBE_PARTS=" + std::to_string(parts)});  // the last entry of a name wins
    ProcessResult r = p.ods({"state", "run", "--format", "json", "--target", "thrift", "--profiles-dir",
                             p.dir().string(), "--dbt", env_->bin("dbt").string()});
    std::printf("ods state run (%d parts): %.0f s\n", parts,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    std::fflush(stdout);
    if (errors) *errors = r.errors;
    EXPECT_EQ(r.exit_code, 0) << r.errors;
    std::map<std::string, nlohmann::json> entries;
    auto doc = nlohmann::json::parse(r.output, nullptr, false);
    EXPECT_FALSE(doc.is_discarded()) << "stdout:\n" << r.output << "\nstderr:\n" << r.errors;
    if (doc.is_discarded()) return entries;
    for (const auto& e : doc.at("plan").at("entries")) entries[e.at("name").get<std::string>()] = e;
    return entries;
  }

  static std::string decision(const nlohmann::json& e) {
    return e.at("action").get<std::string>() + ":" + e.at("reasons").at(0).at("code").get<std::string>();
  }

  static std::string version_of(const nlohmann::json& e, const std::string& table) {
    for (const auto& ev : e.at("evidence"))
      if (ev.at("kind") == "source_data_version" && ev.at("subject") == "source.lakehouse.raw." + table)
        return ev.at("value").get<std::string>();
    return "";
  }

  static SparkEnv* env_;
  static DbtProject* project_;
  static fs::path* lake_;
};

SparkEnv* ThriftProbe::env_ = nullptr;
DbtProject* ThriftProbe::project_ = nullptr;
fs::path* ThriftProbe::lake_ = nullptr;

// Serial first (it records the versions), then three parts at once: every reader of a source
// with a version is reused, which the planner allows only when each version equals the one
// the serial probe recorded.
TEST_F(ThriftProbe, Step1PartsAtOnceGiveTheSerialProbesVersions) {
  auto first = run(1);
  ASSERT_EQ(first.size(), kModels.size());
  for (const auto& [model, _] : kModels) EXPECT_EQ(decision(first.at(model)), "build:never_built") << model;
  std::string errors;
  auto split = run(3, &errors);
  EXPECT_NE(errors.find("3 dbt show calls at once"), std::string::npos) << errors;
  ASSERT_EQ(split.size(), kModels.size());
  const std::regex delta("[0-9a-f-]{36}/0");
  for (const char* model : {"stg_a", "stg_b", "stg_c"}) {
    EXPECT_EQ(decision(split.at(model)), "reuse:unchanged") << split.at(model).dump(2);
    EXPECT_TRUE(std::regex_match(version_of(split.at(model), kModels.at(model)), delta)) << split.at(model).dump(2);
  }
  EXPECT_EQ(decision(split.at("stg_p")), "reuse:unchanged") << split.at("stg_p").dump(2);
  EXPECT_TRUE(version_of(split.at("stg_p"), "p").starts_with("rows=1;hash=")) << split.at("stg_p").dump(2);
  EXPECT_EQ(decision(split.at("stg_v")), "build:missing_data_evidence") << split.at("stg_v").dump(2);
}

// A source in a schema that does not exist fails the part whose share holds it. In unique-id
// order (a, b, c, p, v, then zz_ghost.nowhere) it is at position 5: share 2 of 3 (positions
// 2 and 5: c and ghost). c's reader builds, quoting dbt; the other parts' readers are reused.
TEST_F(ThriftProbe, Step2AFailedPartLeavesOnlyItsSharesSourcesUnknown) {
  project_->write(
      "models/ghost.yml",
      "version: 2\nsources:\n  - name: zz_ghost\n    schema: nowhere\n    tables:\n      - name: nowhere\n");
  auto entries = run(3);
  ASSERT_EQ(entries.size(), kModels.size());
  EXPECT_EQ(decision(entries.at("stg_c")), "build:missing_data_evidence") << entries.at("stg_c").dump(2);
  std::string why = entries.at("stg_c").at("reasons").at(0).at("message").get<std::string>();
  EXPECT_NE(why.find("part 3 of 3 of the probe failed"), std::string::npos) << why;
  EXPECT_NE(why.find("nowhere"), std::string::npos) << "dbt's error names the schema: " << why;
  for (const char* model : {"stg_a", "stg_b", "stg_p"})
    EXPECT_EQ(decision(entries.at(model)), "reuse:unchanged") << entries.at(model).dump(2);
}

}  // namespace
}  // namespace ods::testing
