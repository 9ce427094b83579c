// `ods state run` on examples/shop (DuckDB): each scenario is a change followed by a run,
// with assertions on every affected node's action and reason code.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include "harness/shop_baseline.h"

namespace ods::testing {
namespace {

namespace fs = std::filesystem;

std::string decision(const nlohmann::json& e) {
  return e.at("action").get<std::string>() + ":" + e.at("reasons").at(0).at("code").get<std::string>();
}

// `ods state run --format json` on `p`; returns {exit code, document}.
std::pair<int, nlohmann::json> run(const DbtProject& p, std::vector<std::string> extra = {},
                                   std::string* errors = nullptr) {
  std::vector<std::string> args{"state", "run", "--format", "json", "--profiles-dir", p.dir().string()};
  args.insert(args.end(), extra.begin(), extra.end());
  ProcessResult r = p.ods(args);
  if (errors) *errors = r.errors;
  auto doc = nlohmann::json::parse(r.output, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << "stdout:\n" << r.output << "\nstderr:\n" << r.errors;
  return {r.exit_code, doc};
}

std::unique_ptr<DbtProject> make_run_baseline() {
  auto p = std::make_unique<DbtProject>("shop");
  EXPECT_EQ(p->generate_data().exit_code, 0);
  auto [first_code, first] = run(*p);
  EXPECT_EQ(first_code, 0) << first.dump(2);
  for (const auto& e : first.at("plan").at("entries")) EXPECT_EQ(decision(e), "build:never_built") << e.dump();
  auto [second_code, second] = run(*p);  // the incremental model's steady state
  EXPECT_EQ(second_code, 0) << second.dump(2);
  return p;
}

const DbtProject& run_baseline() {
  static std::unique_ptr<DbtProject> baseline = make_run_baseline();
  return *baseline;
}

std::size_t snapshot_count(const DbtProject& p) {
  auto r = p.ods({"state", "history", "--format", "json", "--limit", "0"});
  EXPECT_EQ(r.exit_code, 0) << r.errors;
  return nlohmann::json::parse(r.output).at("snapshots").size();
}

class ShopRun : public ::testing::Test {
 protected:
  ShopRun() : project_(DbtProject::copy_of(run_baseline())) {}
  DbtProject project_;
};

TEST_F(ShopRun, NothingChangedReusesAllButTheAlwaysBuiltNode) {
  auto [code, doc] = run(project_);
  ASSERT_EQ(code, 0) << doc.dump(2);
  const auto& plan = doc.at("plan");
  for (const auto& e : plan.at("entries")) {
    if (e.at("name") == "dim_customers") {
      EXPECT_EQ(decision(e), "build:reads_run_context");
    } else {
      EXPECT_EQ(decision(e), "reuse:unchanged") << e.dump(2);
      bool checked = false;
      for (const auto& ev : e.at("evidence"))
        checked |= ev.at("kind") == "relation_exists" && ev.at("value") == "true" && ev.at("exactness") == "exact";
      EXPECT_TRUE(checked) << "a reuse in a run checks that the relation exists: " << e.dump();
    }
  }
  EXPECT_EQ(doc.at("run").at("counts").at("built"), 1);
}

TEST_F(ShopRun, WhenEverythingSelectedIsReusedDbtBuildIsNotStarted) {
  std::string errors;
  auto [code, doc] = run(project_, {"--select", "stg_orders+1"}, &errors);
  ASSERT_EQ(code, 0) << errors;
  EXPECT_EQ(doc.at("run").at("outcome"), "reused");
  EXPECT_NE(errors.find("dbt build not started"), std::string::npos) << errors;
  EXPECT_EQ(doc.at("plan").at("summary").at("build"), 0);
}

TEST_F(ShopRun, RowsInsertedIntoASourceBuildItsReaders) {
  ODS_ASSERT_OK(project_.generate_data({"--append-orders", "5"}));
  auto [code, doc] = run(project_);
  ASSERT_EQ(code, 0) << doc.dump(2);
  const auto& plan = doc.at("plan");
  EXPECT_EQ(decision(entry(plan, "stg_orders")), "build:new_upstream_data");
  EXPECT_EQ(decision(entry(plan, "stg_payments")), "build:new_upstream_data");  // payments appended too
  EXPECT_EQ(decision(entry(plan, "orders_daily")), "build:new_upstream_data");
  EXPECT_EQ(decision(entry(plan, "stg_customers")), "reuse:unchanged");
  EXPECT_EQ(decision(entry(plan, "customers_snapshot")), "reuse:unchanged");
  EXPECT_EQ(decision(entry(plan, "country_codes")), "reuse:unchanged");
}

TEST_F(ShopRun, ARowUpdatedWithoutLoadedAtIsDetectedByContent) {
  ODS_ASSERT_OK(project_.generate_data({"--update-customers", "1"}));
  auto [code, doc] = run(project_);
  ASSERT_EQ(code, 0) << doc.dump(2);
  const auto& plan = doc.at("plan");
  EXPECT_EQ(decision(entry(plan, "stg_customers")), "build:new_upstream_data");
  EXPECT_EQ(decision(entry(plan, "customers_snapshot")), "build:new_upstream_data");
  EXPECT_EQ(decision(entry(plan, "stg_orders")), "reuse:unchanged");
  auto message = entry(plan, "stg_customers").at("reasons").at(0).at("message").get<std::string>();
  EXPECT_NE(message.find("raw.customers"), std::string::npos) << message;
}

TEST_F(ShopRun, ASourceRecreatedWithTheSameRowsIsJudgedByItsContent) {
  ODS_ASSERT_OK(project_.sql(
      "create table raw.customers_copy as select * from raw.customers; drop table raw.customers; "
      "alter table raw.customers_copy rename to customers"));
  auto [code, doc] = run(project_);
  ASSERT_EQ(code, 0) << doc.dump(2);
  // Same rows: the content version is equal, so reusing the readers is correct, and the
  // evidence says which content version was seen.
  const auto& e = entry(doc.at("plan"), "stg_customers");
  EXPECT_EQ(decision(e), "reuse:unchanged");
  bool content = false;
  for (const auto& ev : e.at("evidence"))
    content |= ev.at("kind") == "source_data_version" && ev.at("origin") == "duckdb_content" &&
               ev.at("exactness") == "exact";
  EXPECT_TRUE(content) << e.dump(2);
}

TEST_F(ShopRun, AModelRelationDroppedOutsideDbtIsBuilt) {
  ODS_ASSERT_OK(project_.sql("drop view main.stg_orders"));
  auto [code, doc] = run(project_);
  ASSERT_EQ(code, 0) << doc.dump(2);
  EXPECT_EQ(decision(entry(doc.at("plan"), "stg_orders")), "build:relation_missing");
  EXPECT_EQ(decision(entry(doc.at("plan"), "country_codes")), "reuse:unchanged");
}

// A dbt that fails the probe (dbt show) and passes everything else to the real dbt.
std::string write_failing_probe_dbt(const DbtProject& p) {
  fs::path script = p.dir() / "dbt-without-warehouse.sh";
  std::ofstream out(script);
  out << "#!/bin/sh\nfor a in \"$@\"; do if [ \"$a\" = show ]; then\n"
      << "  echo 'Runtime Error: could not connect to the warehouse (test)' >&2; exit 2; fi; done\n"
      << "exec " << (venv_bin() / "dbt").string() << " \"$@\"\n";
  out.close();
  fs::permissions(script, fs::perms::owner_all);
  return script.string();
}

TEST_F(ShopRun, AFailingProbeMakesEverySourceUnknownAndWarnsWithDbtsError) {
  std::string errors;
  auto [code, doc] = run(project_, {"--dbt", write_failing_probe_dbt(project_)}, &errors);
  ASSERT_EQ(code, 0) << errors;
  const auto& plan = doc.at("plan");
  EXPECT_EQ(decision(entry(plan, "stg_orders")), "build:missing_data_evidence");
  EXPECT_EQ(decision(entry(plan, "stg_customers")), "build:missing_data_evidence");
  EXPECT_EQ(decision(entry(plan, "country_codes")), "build:relation_unverified");
  bool warned = false;
  for (const auto& w : plan.at("warnings")) warned |= w.get<std::string>().find("could not connect") != std::string::npos;
  EXPECT_TRUE(warned) << plan.at("warnings");
  EXPECT_EQ(doc.at("plan").at("summary").at("reuse"), 0);
}

TEST_F(ShopRun, AFailingModelKeepsItsStateAndIsRebuiltNextRun) {
  project_.replace_in("models/marts/fct_orders.sql", "o.loaded_at\n", "o.loaded_at, no_such_column\n");
  auto [code, doc] = run(project_);
  EXPECT_NE(code, 0) << doc.dump(2);
  EXPECT_GE(doc.at("run").at("counts").at("failed").get<int>(), 1);
  auto [again_code, again] = run(project_);
  EXPECT_NE(again_code, 0);
  EXPECT_EQ(decision(entry(again.at("plan"), "fct_orders")), "build:fingerprint_changed");
  EXPECT_EQ(decision(entry(again.at("plan"), "order_status_summary")), "build:upstream_code_changed");
  EXPECT_EQ(decision(entry(again.at("plan"), "stg_orders")), "reuse:unchanged");
}

TEST_F(ShopRun, SigintDuringTheBuildRecordsNothing) {
  // A dbt whose build waits, so the interruption lands while dbt build runs.
  fs::path script = project_.dir() / "slow-dbt.sh";
  {
    std::ofstream out(script);
    out << "#!/bin/sh\nfor a in \"$@\"; do if [ \"$a\" = build ]; then echo building >&2; sleep 60; fi; done\n"
        << "exec " << (venv_bin() / "dbt").string() << " \"$@\"\n";
  }
  fs::permissions(script, fs::perms::owner_all);
  project_.replace_in("models/staging/stg_orders.sql", "lower(status)", "upper(status)");
  const std::size_t before = snapshot_count(project_);
  fs::path log = project_.dir() / "ods.log";
  pid_t pid = ::fork();
  if (pid == 0) {
    if (!std::freopen(log.c_str(), "w", stdout) || ::dup2(STDOUT_FILENO, STDERR_FILENO) < 0) _exit(126);
    ::execl(ods_binary().c_str(), "ods", "state", "run", "--project-dir", project_.dir().c_str(), "--profiles-dir",
            project_.dir().c_str(), "--dbt", script.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  bool building = false;
  for (int i = 0; i < 600 && !building; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    std::ifstream in(log);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    building = text.find("ods: building") != std::string::npos;
  }
  ASSERT_TRUE(building) << "ods never reached dbt build";
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  EXPECT_EQ(snapshot_count(project_), before) << "an interrupted run records nothing";
}

}  // namespace
}  // namespace ods::testing
