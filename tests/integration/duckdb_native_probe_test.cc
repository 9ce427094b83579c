// The native DuckDB probe answers as the dbt show probe does (issue 41 item 3,
// ods/duckdb/native_probe.h): after `ods state run` built examples/shop on DuckDB, the requests a
// run's probe sends (the sources' evidence by storage and by content, with the relations'
// identities; the built nodes' content) go through `dbt show` (real dbt-duckdb) and through the
// native program, and the reports agree field by field but for the seconds. Then the runs: the
// step line, the same plan both ways, every case left to dbt show with its reason (a profile
// field it does not apply, a key it does not know, ODS_NATIVE_PROBE=off), and a database a writer
// holds: nothing reused.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/probe_compare.h"
#include "harness/shop_baseline.h"
#include "ods/dbt/duckdb_identity.h"
#include "ods/dbt/show_probe.h"
#include "ods/duckdb/duckdb_versions.h"
#include "ods/duckdb/native_probe.h"

namespace ods::testing {
namespace {

namespace fs = std::filesystem;
using contracts::ProbeRequest;

class DuckDbNativeProbe : public ::testing::Test {
 protected:
  void SetUp() override {
    project_.emplace("shop");
    project_->add_env({"ODS_DIGEST_KEY=duckdb-native-probe-test-key-0123456789abcdef"});
    // examples/shop's Python model is never compile-keyed (docs/compile-key.md): its compile would
    // start dbt in every run, whose process then holds the database (the probe goes through it).
    fs::remove(project_->dir() / "models/marts/order_status_summary.py");
    ODS_ASSERT_OK(project_->generate_data());
    // --write-manifest: relations_of() reads target/manifest.json, which a run writes only when asked.
    ProcessResult built =
        project_->ods({"state", "run", "--write-manifest", "--profiles-dir", project_->dir().string()});
    ASSERT_EQ(built.exit_code, 0) << built.output << built.errors;
  }

  // Runs `request` both ways, compares, prints the wall times. The database is checkpointed first:
  // dbt-duckdb opens it read-write and checkpoints a write-ahead log when its process ends, the
  // native probe reads it as it is, so with a log left the two would read different storage.
  void compare(const ProbeRequest& request, const std::string& what) {
    ODS_ASSERT_OK(project_->sql("checkpoint"));
    HarnessDbt dbt(*project_);
    auto show = dbt::make_show_probe(dbt, {});
    auto launcher = process::make_process_launcher({});
    auto database = duckdb::database_from_profile("dev", {{"type", "duckdb"}, {"path", "shop.duckdb"}}, {});
    ASSERT_TRUE(database) << database.error();
    auto native = duckdb::make_native_duckdb_probe(*launcher, {venv_bin() / "python", project_->dir()}, *database,
                                                   relations_of(*project_));
    auto reports = compare_probes(*show, *native, request, "duckdb native probe", what);
    ASSERT_TRUE(reports);
    const ProbeReport* through_dbt = &reports->first;
    const ProbeReport* natively = &reports->second;
    // The same evidence strings: the provider reads both reports alike.
    auto provider = duckdb::make_duckdb_storage_versions(project_->dir(), limit_);
    auto dbt_versions = provider->versions(*through_dbt, "t");
    auto native_versions = provider->versions(*natively, "t");
    ASSERT_EQ(dbt_versions.size(), native_versions.size()) << what;
    for (std::size_t i = 0; i < dbt_versions.size(); ++i) {
      ASSERT_EQ(dbt_versions[i].version.has_value(), native_versions[i].version.has_value()) << what;
      if (dbt_versions[i].version) {
        EXPECT_EQ(dbt_versions[i].version->value, native_versions[i].version->value) << what;
      }
    }
  }

  ProbeRequest run_request(std::optional<unsigned long long> limit) {
    limit_ = limit;
    ProbeRequest request = duckdb::make_duckdb_storage_versions(project_->dir(), limit)->request();
    request.identity_statements = dbt::duckdb_identity_statements();
    return request;
  }

  // `ods state run --dry-run` with `env` added: node id -> action and reasons, and its stderr.
  std::pair<std::map<std::string, std::string>, std::string> dry_run(const std::vector<std::string>& env = {}) {
    std::optional<DbtProject> copy;
    DbtProject* p = &*project_;
    if (!env.empty()) {
      copy.emplace(DbtProject::copy_of(*project_));
      copy->add_env(env);
      p = &*copy;
    }
    ProcessResult r = p->ods({"state", "run", "--dry-run", "--format", "json", "--profiles-dir", p->dir().string()});
    std::map<std::string, std::string> decisions;
    auto doc = nlohmann::json::parse(r.output, nullptr, false);
    EXPECT_FALSE(doc.is_discarded()) << r.output << r.errors;
    if (doc.is_discarded()) return {decisions, r.errors};
    for (const auto& e : doc["plan"]["entries"]) {
      std::string reasons;
      for (const auto& reason : e["reasons"]) reasons += reason.value("code", "") + ",";
      decisions[e.value("id", "")] = e.value("action", "") + ":" + reasons;
    }
    return {decisions, r.errors};
  }

  static std::size_t reused(const std::map<std::string, std::string>& decisions) {
    std::size_t n = 0;
    for (const auto& [id, d] : decisions) n += d.starts_with("reuse");
    return n;
  }

  std::optional<DbtProject> project_;
  std::optional<unsigned long long> limit_;
};

TEST_F(DuckDbNativeProbe, TheRunsSourceRequestIsAnsweredAsDbtAnswersIt) {
  compare(run_request(16ULL * 1024 * 1024), "sources (storage above 16 MiB, content below)");
  compare(run_request(std::nullopt), "sources (storage identity on every table)");
}

TEST_F(DuckDbNativeProbe, TheBuiltNodesContentAndMissingRelationsAreAnsweredAsDbtAnswersThem) {
  ProbeRequest request = duckdb::make_duckdb_storage_versions(project_->dir())->content_request();
  request.sources = false;
  for (const auto& node : relations_of(*project_).nodes) request.content_nodes.push_back(node.id);
  request.content_nodes.push_back("model.shop.no_such_model");
  ODS_ASSERT_OK(project_->sql("drop table main.orders_daily"));
  compare(request, "built nodes' content, one relation dropped");
  request.skip_statements[request.content_nodes.front()] = {"content"};
  compare(request, "a skipped statement");
}

// A run probes natively unless ODS_NATIVE_PROBE is "off", the step line says which, and both
// plan alike; the run records probe_native.
TEST_F(DuckDbNativeProbe, ARunProbesNativelyAndPlansAsThroughDbtShow) {
  auto [native, native_log] = dry_run({"ODS_NATIVE_PROBE=on"});
  EXPECT_NE(native_log.find("relations (native probe, no dbt process)"), std::string::npos) << native_log;
  EXPECT_EQ(native_log.find("warning"), std::string::npos) << native_log;
  auto [shown, shown_log] = dry_run({"ODS_NATIVE_PROBE=off"});
  EXPECT_NE(shown_log.find("(one dbt show call; not the native probe: ODS_NATIVE_PROBE is off)"), std::string::npos)
      << shown_log;
  EXPECT_EQ(native, shown);
  EXPECT_GT(reused(native), 0u);
  ProcessResult run = project_->ods({"state", "run", "--format", "json", "--profiles-dir", project_->dir().string()});
  ASSERT_EQ(run.exit_code, 0) << run.errors;
  auto doc = output_json(run);
  EXPECT_GT(doc["run"]["timings"].value("probe_native", 0.0), 0.0) << doc["run"]["timings"].dump();
}

// What the native probe does not do as dbt-duckdb does leaves the probe to dbt show, the step
// line saying why, and the plan is the one dbt show's answer gives.
TEST_F(DuckDbNativeProbe, ProfileFieldsItDoesNotApplyLeaveTheProbeToDbtShowWithTheReason) {
  auto [before, before_log] = dry_run();
  EXPECT_NE(before_log.find("(native probe, no dbt process)"), std::string::npos) << before_log;
  const std::string profiles = project_->read("profiles.yml");
  const std::string dev = "      threads: 2\n    pr:";
  ASSERT_NE(profiles.find(dev), std::string::npos) << profiles;
  for (const auto& [field, why] : std::vector<std::pair<std::string, std::string>>{
           {"      settings:\n        threads: 1\n", "target 'dev' sets 'settings', which dbt-duckdb applies"},
           {"      ods_unknown_option: 1\n",
            "target 'dev' sets 'ods_unknown_option', which the native probe does not"}}) {
    std::string changed = profiles;
    changed.replace(changed.find(dev), dev.size(), "      threads: 2\n" + field + "    pr:");
    project_->write("profiles.yml", changed);
    auto [after, after_log] = dry_run();
    EXPECT_NE(after_log.find("(one dbt show call; not the native probe: " + why), std::string::npos) << after_log;
    EXPECT_EQ(before, after) << field;
  }
  project_->write("profiles.yml", profiles);
}

// A writer holds the database file: the native probe is refused (locked), dbt show is refused
// too, and nothing is reused on a guess.
TEST_F(DuckDbNativeProbe, ADatabaseAWriterHoldsIsReusedNowhere) {
  const fs::path ready = project_->dir() / "writer-ready";
  const fs::path pid = project_->dir() / "writer.pid";
  const std::string holder = "cd " + project_->dir().string() + " && " + (venv_bin() / "python").string() +
                             " -c \"import duckdb, time; c = duckdb.connect('shop.duckdb'); open('writer-ready', "
                             "'w').close(); time.sleep(120)\" > /dev/null 2>&1 & echo $! > " +
                             pid.string();
  ASSERT_EQ(std::system(holder.c_str()), 0);
  for (int i = 0; i < 400 && !fs::exists(ready); ++i) ASSERT_EQ(std::system("sleep 0.05"), 0);
  ASSERT_TRUE(fs::exists(ready));
  auto [locked, log] = dry_run();
  EXPECT_EQ(std::system(("kill $(cat " + pid.string() + ")").c_str()), 0);
  EXPECT_NE(log.find("the native probe failed (DuckDB: the database file is locked by another process"),
            std::string::npos)
      << log;
  EXPECT_FALSE(locked.empty()) << log;
  EXPECT_EQ(reused(locked), 0u) << log;
}

}  // namespace
}  // namespace ods::testing
