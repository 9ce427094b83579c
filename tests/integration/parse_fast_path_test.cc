// The parse's fast path on PostgreSQL (issue 41 item 3, docs/cli.md "Nothing changed: no dbt
// process"): after examples/shop was built with `--target pg`, a run where nothing changed starts
// no dbt process at all (the parse's fast path, no compile, the native probe, nothing to build),
// even with dbt made unusable; an edited model, or a changed variable a model names, makes it
// decline and dbt parse. dbt runs through a venv of its own whose `python` logs every start and
// exits 97 while a flag file exists: the console script and site-packages are the real venv's.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/dbt_project.h"
#include "harness/logging_dbt_venv.h"
#include "harness/postgres_server.h"
#include "harness/postgres_shop.h"
#include "harness/shop_baseline.h"

namespace ods::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kLoaded = "shop_fast_path_loaded";
constexpr const char* kFastLine = "the kept parse stands, dbt not started";
constexpr const char* kNativeLine = "native probe, no dbt process";

class ParseFastPath : public PostgresShopFixture {
 protected:
  // examples/shop as it is: dim_customers's pre-hook reads a variable (keyed: reused while it is
  // unchanged), and orders_daily is incremental (its compile key, cleared before its first build
  // since its relation did not exist, is recorded with the SQL recompiled after that build).
  ParseFastPath() : PostgresShopFixture(kLoaded, {"ODS_DIGEST_KEY=parse-fast-path-test-key-0123456789abcdef"}) {}

  static void SetUpTestSuite() { load_shop_raw_tables(kLoaded); }

  void SetUp() override {
    PostgresShopFixture::SetUp();
    if (HasFatalFailure()) return;
    venv_ = std::make_unique<LoggingDbtVenv>(project_->dir().parent_path());
    project_->use_venv(venv_->bin());
  }

  void TearDown() override {
    venv_.reset();
    PostgresShopFixture::TearDown();
  }

  fs::path starts() const { return venv_->starts(); }
  fs::path broken() const { return venv_->broken(); }
  bool dbt_started() const { return venv_->started(); }

  // What a run printed: its step lines and its plan.
  static std::string said(const ProcessResult& r) { return r.output + r.errors; }

  ProcessResult run() const {
    return project_->ods({"state", "run", "--target", "pg", "--profiles-dir", project_->dir().string()});
  }

  // Runs until a run builds nothing (the first builds everything; a second may re-run checks);
  // steady_ is what that run said.
  void build_until_steady() {
    std::string last;
    for (int i = 0; i < 3; ++i) {
      ProcessResult r = run();
      ASSERT_EQ(r.exit_code, 0) << r.output << r.errors;
      steady_ = said(r);
      if (steady_.find("dbt build not started") != std::string::npos) return;
      last = r.output + r.errors;
    }
    FAIL() << "the shop never reached a run that builds nothing:\n" << last;
  }

  std::unique_ptr<LoggingDbtVenv> venv_;
  std::string steady_;
};

TEST_F(ParseFastPath, NothingChangedStartsNoDbtProcessAndAnEditedModelParses) {
  build_until_steady();
  // The run after the first build: orders_daily's key, set aside at its first build (no relation
  // yet) and given back with its recompiled incremental SQL, stands; dim_customers's too (its
  // hook's variable keyed). Nothing compiled, the parse's fast path: examples/shop run twice with
  // nothing changed starts no dbt the second time.
  EXPECT_NE(steady_.find(kFastLine), std::string::npos) << steady_;
  EXPECT_NE(steady_.find(", 0 compiled"), std::string::npos) << steady_;
  EXPECT_NE(steady_.find("native probe, no dbt process"), std::string::npos) << steady_;
  fs::remove(starts());
  std::ofstream(broken()) << "";
  auto t0 = std::chrono::steady_clock::now();
  ProcessResult fast = run();
  const double fast_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(fast.exit_code, 0) << fast.output << said(fast);
  EXPECT_NE(said(fast).find(kFastLine), std::string::npos) << said(fast);
  EXPECT_NE(said(fast).find("native probe, no dbt process"), std::string::npos) << said(fast);
  EXPECT_NE(said(fast).find(", 0 compiled"), std::string::npos) << said(fast);
  EXPECT_NE(said(fast).find("dbt build not started"), std::string::npos) << said(fast);
  EXPECT_FALSE(dbt_started()) << said(fast);

  // The run document says the fast path was taken.
  ProcessResult json =
      project_->ods({"state", "run", "--target", "pg", "--profiles-dir", project_->dir().string(), "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.errors;
  auto doc = nlohmann::json::parse(json.output, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << json.output;
  EXPECT_EQ(doc["run"]["parse_fast_path"]["taken"], true) << doc["run"].dump();

  // New source data: the parse stands, the probe finds the change, and the build's dbt first parses in
  // the driver (the kept copy still stands): one parse for the run, recorded against the plan.
  fs::remove(broken());
  ODS_ASSERT_OK(
      pg_->psql("insert into raw.orders select order_id + 1000000, customer_id, ordered_at, status, "
                "amount_cents, loaded_at + interval '1 hour' from raw.orders order by order_id limit 1",
                kDatabase));
  ProcessResult data =
      project_->ods({"state", "run", "--target", "pg", "--profiles-dir", project_->dir().string(), "--format", "json"});
  ASSERT_EQ(data.exit_code, 0) << said(data);
  EXPECT_NE(said(data).find(kFastLine), std::string::npos) << said(data);
  auto built = nlohmann::json::parse(data.output, nullptr, false);
  ASSERT_FALSE(built.is_discarded()) << data.output;
  EXPECT_GT(built["run"]["counts"].value("built", 0), 0) << built["run"].dump();
  EXPECT_EQ(built["run"]["recorded_from"], "plan") << built["run"].dump();
  EXPECT_EQ(built["run"]["parse_fast_path"]["taken"], true) << built["run"].dump();
  std::ofstream(broken()) << "";

  // An edited model: the fast path declines, and dbt (unusable) is started and fails the run.
  project_->replace_in("models/staging/stg_orders.sql", "select", "select /* edited */");
  ProcessResult edited = run();
  EXPECT_NE(edited.exit_code, 0) << said(edited);
  EXPECT_NE(said(edited).find("not the parse's fast path: something dbt's parse reads changed"), std::string::npos)
      << said(edited);
  EXPECT_TRUE(dbt_started());
  fs::remove(broken());
  ProcessResult parsed = run();
  EXPECT_EQ(parsed.exit_code, 0) << said(parsed);
  EXPECT_EQ(said(parsed).find(kFastLine), std::string::npos) << said(parsed);

  // ODS_PARSE_FAST_PATH=off parses with dbt, saying why.
  project_->add_env({"ODS_PARSE_FAST_PATH=off"});
  t0 = std::chrono::steady_clock::now();
  ProcessResult off = run();
  const double off_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "[parse fast path] nothing changed, examples/shop on PostgreSQL: fast path " << fast_seconds
            << " s (no dbt process), ODS_PARSE_FAST_PATH=off " << off_seconds << " s\n";
  EXPECT_EQ(off.exit_code, 0) << said(off);
  EXPECT_NE(said(off).find("not the parse's fast path: ODS_PARSE_FAST_PATH is off"), std::string::npos) << said(off);
}

TEST_F(ParseFastPath, AChangedVariableAModelNamesDeclines) {
  project_->replace_in("models/staging/stg_orders.sql", "select",
                       "-- tag {{ env_var('SHOP_FAST_TAG', 'none') }}\nselect");
  project_->add_env({"SHOP_FAST_TAG=one"});
  build_until_steady();
  // A model whose Jinja reads a variable can't keep its recorded SQL (its compile starts dbt),
  // but the parse stands while the variable is unchanged.
  ProcessResult same = run();
  EXPECT_EQ(same.exit_code, 0) << said(same);
  EXPECT_NE(said(same).find(kFastLine), std::string::npos) << said(same);
  fs::remove(starts());
  project_->add_env({"SHOP_FAST_TAG=two"});  // the last entry wins
  ProcessResult changed = run();
  EXPECT_EQ(changed.exit_code, 0) << said(changed);
  EXPECT_NE(said(changed).find("not the parse's fast path: something dbt's parse reads changed"), std::string::npos)
      << said(changed);
  EXPECT_TRUE(dbt_started());
  ProcessResult again = run();
  EXPECT_EQ(again.exit_code, 0) << said(again);
  EXPECT_NE(said(again).find(kFastLine), std::string::npos) << said(again);
}

// The same on DuckDB (examples/shop's default target), through the native DuckDB probe
// (ods/duckdb/native_probe.h): after the shop was built, a run where nothing changed starts no
// dbt process at all, even with dbt made unusable (its Python, which the native probe runs too, is
// usable; only dbt's console script fails). examples/shop's Python model is left out: a Python
// model is never compile-keyed (docs/compile-key.md), so it would start dbt's compile every run.
// New source data builds, through dbt, on the same kept parse.
class ParseFastPathDuckDb : public ::testing::Test {
 protected:
  void SetUp() override {
    project_.emplace("shop");
    project_->add_env({"ODS_DIGEST_KEY=parse-fast-path-duckdb-key-0123456789abcdef"});
    fs::remove(project_->dir() / "models/marts/order_status_summary.py");
    ODS_ASSERT_OK(project_->generate_data());
    venv_ = std::make_unique<LoggingDbtVenv>(project_->dir().parent_path());
    // dbt itself unusable while dbt_broken_ exists (its Python stays usable: the native probe runs
    // it): the console script's own lines fail first.
    dbt_broken_ = project_->dir().parent_path() / "dbt-console-script-broken";
    std::string script = read_text_file(venv_->bin() / "dbt");
    const auto eol = script.find('\n');
    script.insert(eol + 1, "import os, sys\nif os.path.exists('" + dbt_broken_.string() + "'): sys.exit(97)\n");
    std::ofstream(venv_->bin() / "dbt") << script;
    project_->use_venv(venv_->bin());
  }

  ProcessResult run(const std::vector<std::string>& extra = {}) const {
    std::vector<std::string> args{"state", "run", "--profiles-dir", project_->dir().string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return project_->ods(args);
  }
  static std::string said(const ProcessResult& r) { return r.output + r.errors; }

  std::optional<DbtProject> project_;
  std::unique_ptr<LoggingDbtVenv> venv_;
  fs::path dbt_broken_;
};

TEST_F(ParseFastPathDuckDb, NothingChangedStartsNoDbtProcessThroughTheNativeProbe) {
  std::string steady;
  for (int i = 0; i < 3 && steady.find("dbt build not started") == std::string::npos; ++i) {
    ProcessResult r = run();
    ASSERT_EQ(r.exit_code, 0) << said(r);
    steady = said(r);
  }
  ASSERT_NE(steady.find("dbt build not started"), std::string::npos) << steady;
  std::ofstream(dbt_broken_) << "";
  ProcessResult fast = run({"--format", "json"});
  ASSERT_EQ(fast.exit_code, 0) << said(fast);
  EXPECT_NE(fast.errors.find(kFastLine), std::string::npos) << fast.errors;
  EXPECT_NE(fast.errors.find(kNativeLine), std::string::npos) << fast.errors;
  EXPECT_NE(fast.errors.find(", 0 compiled"), std::string::npos) << fast.errors;
  EXPECT_NE(fast.errors.find("dbt build not started"), std::string::npos) << fast.errors;
  EXPECT_EQ(fast.errors.find("warning"), std::string::npos) << fast.errors;
  auto doc = nlohmann::json::parse(fast.output, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << fast.output;
  EXPECT_EQ(doc["run"]["parse_fast_path"]["taken"], true) << doc["run"].dump();
  EXPECT_EQ(doc["run"]["counts"].value("built", -1), 0) << doc["run"].dump();
  EXPECT_GT(doc["run"]["timings"].value("probe_native", 0.0), 0.0) << doc["run"].dump();
  EXPECT_EQ(doc["run"]["timings"].value("probe_dbt", -1.0), 0.0) << doc["run"].dump();

  // New source data: found by the native probe; the build starts dbt (unusable here: the run fails).
  fs::remove(dbt_broken_);
  ODS_ASSERT_OK(
      project_->sql("insert into raw.orders select order_id + 1000000, customer_id, ordered_at, status, "
                    "amount_cents, loaded_at + interval 1 hour from raw.orders order by order_id limit 1"));
  ProcessResult data = run({"--format", "json"});
  ASSERT_EQ(data.exit_code, 0) << said(data);
  EXPECT_NE(data.errors.find(kFastLine), std::string::npos) << data.errors;
  EXPECT_NE(data.errors.find(kNativeLine), std::string::npos) << data.errors;
  auto built = nlohmann::json::parse(data.output, nullptr, false);
  ASSERT_FALSE(built.is_discarded()) << data.output;
  EXPECT_GT(built["run"]["counts"].value("built", 0), 0) << built["run"].dump();
  EXPECT_EQ(built["run"]["parse_fast_path"]["taken"], true) << built["run"].dump();
}

}  // namespace
}  // namespace ods::testing
