// Failing checks keep gating, as `dbt build` gates (issue 27, item 1), on examples/shop (DuckDB):
// a data test, a source test and a unit test that fail stay red on every `ods state run` until
// they pass; the nodes they gate are skipped and keep their last state; once the check passes
// the gated nodes build, and a run with nothing changed after that reuses everything without
// running the passed checks again, saying why in its report. Every run is judged against
// `dbt build` on an identical copy of the project taken just before it, as the reuse corpus
// does: ods exits 0 exactly when dbt build does, and leaves each relation with dbt build's rows.
// Each scenario runs under `--cutoff off` (one wave) and under the default `--cutoff auto`.
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>

#include "harness/relation_contents.h"
#include "harness/shop_baseline.h"

namespace ods::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kAcceptedValues = "accepted_values_stg_orders_status";
constexpr const char* kUnitTest = "test_stg_orders_converts_cents_and_status";
const std::vector<std::string> kRelations{"country_codes", "stg_customers", "stg_orders",   "stg_payments",
                                          "fct_orders",    "dim_customers", "orders_daily", "order_status_summary"};

struct RunResult {
  int code = -1;
  json doc;
  std::string errors;
};

std::string decision(const json& e) {
  return e.at("action").get<std::string>() + ":" + e.at("reasons").at(0).at("code").get<std::string>();
}

// The entry of the run document's "checks" named `name` (a node or a source), or null.
const json* check_entry(const json& doc, const std::string& name) {
  if (!doc.contains("checks")) return nullptr;
  for (const auto& e : doc.at("checks").at("entries"))
    if (e.at("name") == name) return &e;
  return nullptr;
}

class ShopGate : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const DbtProject& baseline = shop_baseline();
    ASSERT_FALSE(::testing::Test::HasFailure()) << "the shop baseline failed";
    project_.emplace(DbtProject::copy_of(baseline));
    // The baseline was recorded by `ods state record` with sources.json's versions; one run
    // records the probe's, so that each scenario starts from a state where nothing changed.
    const RunResult settled = run();
    ASSERT_EQ(settled.code, 0) << settled.doc.dump(2) << settled.errors;
  }

  // True under `--cutoff off`: one wave, as `dbt build` gates. Under `auto` the cost model draws
  // a wave boundary or not from measured call times, and after the data is fixed early cutoff may
  // rightly reuse a gated reader whose input came back to what it was built from; so what is
  // built when is asserted under `off` alone, the gate and the oracle under both.
  bool one_wave() const { return GetParam() == "off"; }

  // `ods state run --format json --cutoff <mode> <extra>`, judged against `dbt build` on an
  // identical copy taken just before it (same warehouse file, code and data): both succeed or both
  // fail, and every relation holds what dbt build left in the copy.
  RunResult run(std::vector<std::string> extra = {}) const {
    const DbtProject control = DbtProject::copy_of(*project_);
    // Without partial parsing: the copy's target/partial_parse.msgpack names the original's paths.
    const ProcessResult built = control.dbt({"build", "--no-partial-parse"});
    std::vector<std::string> args{"state",    "run",      "--format",       "json",
                                  "--cutoff", GetParam(), "--profiles-dir", project_->dir().string()};
    args.insert(args.end(), extra.begin(), extra.end());
    ProcessResult r = project_->ods(args);
    RunResult out{r.exit_code, json::parse(r.output, nullptr, false), r.errors};
    EXPECT_FALSE(out.doc.is_discarded()) << "stdout:\n" << r.output << "\nstderr:\n" << r.errors;
    if (out.doc.is_discarded()) out.doc = json{{"plan", {{"entries", json::array()}}}};
    EXPECT_EQ(out.code == 0, built.exit_code == 0)
        << "ods state run exited " << out.code << ", dbt build on an identical copy " << built.exit_code << ":\n"
        << built.output << "\nods:\n"
        << r.errors;
    EXPECT_EQ(relation_contents(*project_, duckdb_warehouse(), kRelations),
              relation_contents(control, duckdb_warehouse(), kRelations))
        << "a relation's rows differ from dbt build's on an identical copy";
    return out;
  }

  // The status the last dbt command gave `id`, "(not run)" when it did not run it.
  std::string status_of(const std::string& id) const {
    const auto results = last_results();
    return results.contains(id) ? results.at(id) : "(not run)";
  }

  // One number from the project's DuckDB file.
  long long scalar(const std::string& query) const {
    const std::string script =
        "import duckdb,sys\ncon=duckdb.connect(sys.argv[2], read_only=True)\n"
        "print(con.execute(sys.argv[1]).fetchone()[0])\n";
    ProcessResult r =
        run_process({(project_->venv() / "python").string(), "-c", script, query, project_->duckdb_file()},
                    project_->dir(), project_->env());
    EXPECT_EQ(r.exit_code, 0) << r.errors;
    return r.exit_code == 0 ? std::stoll(r.output) : -1;
  }

  // The ids of what the last dbt command ran (target/run_results.json), with their status.
  std::map<std::string, std::string> last_results() const {
    std::map<std::string, std::string> out;
    const json results = json::parse(read_text_file(project_->dir() / "target" / "run_results.json"), nullptr, false);
    if (results.is_discarded()) return out;
    for (const auto& r : results.at("results")) out[r.at("unique_id")] = r.at("status");
    return out;
  }
  bool ran(const std::string& part) const {
    for (const auto& [id, status] : last_results())
      if (id.find(part) != std::string::npos) return true;
    return false;
  }

  // Asserts the run went red because of a check, naming it.
  static void expect_red_naming(const RunResult& r, const std::string& check) {
    EXPECT_NE(r.code, 0) << r.doc.dump(2) << r.errors;
    EXPECT_NE(r.doc.at("run").at("outcome"), "success") << r.doc.at("run").dump(2);
    bool named = false;
    for (const auto& f : r.doc.at("run").value("failed_checks", json::array()))
      named |= f.get<std::string>().find(check) != std::string::npos;
    EXPECT_TRUE(named) << check << " is not among the failed checks: " << r.doc.at("run").dump(2);
  }

  // Asserts `name`'s checks were not run, because they passed on its current build.
  static void expect_not_rerun(const RunResult& r, const std::string& name) {
    const json* e = check_entry(r.doc, name);
    ASSERT_NE(e, nullptr) << name << " has no checks entry: " << r.doc.dump(2);
    EXPECT_EQ(e->at("action"), "skip") << e->dump(2);
    EXPECT_NE(e->at("reasons").at(0).at("message").get<std::string>().find("passed on this build in run"),
              std::string::npos)
        << e->dump(2);
  }

  std::optional<DbtProject> project_;
};

std::string mode_name(const ::testing::TestParamInfo<std::string>& mode) { return mode.param; }
INSTANTIATE_TEST_SUITE_P(Cutoff, ShopGate, ::testing::Values(std::string("off"), std::string("auto")), mode_name);

// The scenario: an order whose status stg_orders' accepted_values test refuses.
TEST_P(ShopGate, AFailingDataTestKeepsGatingItsReadersUntilTheDataIsFixed) {
  ODS_ASSERT_OK(
      project_->sql("insert into raw.orders select order_id + 100000, customer_id, ordered_at, 'lost', amount_cents, "
                    "loaded_at from raw.orders where order_id = 1"));
  const RunResult first = run();
  EXPECT_EQ(decision(entry(first.doc.at("plan"), "stg_orders")), "build:new_upstream_data");
  expect_red_naming(first, kAcceptedValues);
  EXPECT_EQ(scalar("select count(*) from main.fct_orders where order_id = 100001"), 0);

  // Nothing changed, but its failed test must run again and still gate. stg_orders also has a
  // unit test, which dbt build runs only with its build, so it is built again for its checks.
  const RunResult second = run();
  EXPECT_EQ(decision(entry(second.doc.at("plan"), "stg_orders")), "build:checks_not_passed");
  expect_red_naming(second, kAcceptedValues);
  for (const char* gated : {"model.shop.fct_orders", "model.shop.orders_daily", "model.shop.dim_customers"}) {
    if (one_wave()) {
      EXPECT_EQ(status_of(gated), "skipped") << gated;
    }
    EXPECT_NE(status_of(gated), "success") << gated << " was built while its upstream's test failed";
  }
  EXPECT_EQ(scalar("select count(*) from main.fct_orders where order_id = 100001"), 0)
      << "fct_orders was built from the data that failed the test";

  // The data is fixed: the run goes green and builds what the test gated.
  ODS_ASSERT_OK(project_->sql("delete from raw.orders where order_id = 100001"));
  const RunResult fixed = run();
  ASSERT_EQ(fixed.code, 0) << fixed.doc.dump(2) << fixed.errors;
  if (one_wave()) {
    EXPECT_EQ(entry(fixed.doc.at("plan"), "fct_orders").at("action"), "build");
    EXPECT_EQ(status_of("model.shop.fct_orders"), "success");
  }

  // Nothing changed: everything that can be reused is, and the passed test is not run again.
  const RunResult again = run();
  ASSERT_EQ(again.code, 0) << again.doc.dump(2) << again.errors;
  EXPECT_EQ(decision(entry(again.doc.at("plan"), "stg_orders")), "reuse:unchanged");
  // Under auto, fct_orders may have been spared by early cutoff in the fixed run.
  EXPECT_EQ(entry(again.doc.at("plan"), "fct_orders").at("action"), "reuse");
  if (one_wave()) {
    EXPECT_EQ(decision(entry(again.doc.at("plan"), "fct_orders")), "reuse:unchanged");
  }
  expect_not_rerun(again, "stg_orders");
  EXPECT_FALSE(ran(kAcceptedValues)) << "a test that passed on this build ran again";
}

// A data test on a node without unit tests (fct_orders' singular test): the node is reused and
// only its tests run again, before its readers, which dbt skips while they fail.
TEST_P(ShopGate, AFailingDataTestOfAReusedNodeRunsAgainWithoutRebuildingIt) {
  ODS_ASSERT_OK(project_->sql(
      "insert into raw.payments select payment_id + 100000, order_id, payment_method, amount_cents, created_at "
      "from raw.payments where order_id = 1"));
  const RunResult first = run();
  EXPECT_EQ(decision(entry(first.doc.at("plan"), "fct_orders")), "build:new_upstream_data");
  expect_red_naming(first, "assert_paid_not_more_than_amount");

  const RunResult second = run();
  EXPECT_EQ(decision(entry(second.doc.at("plan"), "fct_orders")), "reuse:unchanged");
  expect_red_naming(second, "assert_paid_not_more_than_amount");
  const json* gate = check_entry(second.doc, "fct_orders");
  ASSERT_NE(gate, nullptr) << second.doc.dump(2);
  EXPECT_EQ(gate->at("action"), "run") << gate->dump(2);
  EXPECT_EQ(gate->at("reasons").at(0).at("code"), "not_tested") << gate->dump(2);
  EXPECT_EQ(status_of("model.shop.fct_orders"), "(not run)") << "the reused node was built";
  if (one_wave()) {
    EXPECT_EQ(status_of("model.shop.dim_customers"), "skipped");
  }
  EXPECT_NE(status_of("model.shop.dim_customers"), "success") << "built while its upstream's test failed";

  ODS_ASSERT_OK(project_->sql("delete from raw.payments where payment_id > 100000"));
  const RunResult fixed = run();
  ASSERT_EQ(fixed.code, 0) << fixed.doc.dump(2) << fixed.errors;
  if (one_wave()) {
    EXPECT_EQ(status_of("model.shop.dim_customers"), "success");
  }

  const RunResult again = run();
  ASSERT_EQ(again.code, 0) << again.doc.dump(2) << again.errors;
  EXPECT_EQ(decision(entry(again.doc.at("plan"), "fct_orders")), "reuse:unchanged");
  expect_not_rerun(again, "fct_orders");
  EXPECT_FALSE(ran("assert_paid_not_more_than_amount")) << "a test that passed on this build ran again";
}

// A source test added that the data already in raw.orders fails: nothing builds (a digest key
// makes dim_customers reusable), yet dbt build would run the test and fail until it passes.
TEST_P(ShopGate, AFailingSourceTestKeepsGatingUntilItPasses) {
  const fs::path config = project_->dir() / "config-home";
  fs::create_directories(config);
  project_->add_env({"XDG_CONFIG_HOME=" + config.string(), "ODS_DIGEST_KEY="});
  ODS_ASSERT_OK(project_->ods({"state", "key", "--create"}));
  const RunResult keyed = run();  // dim_customers builds once under the key
  ASSERT_EQ(keyed.code, 0) << keyed.doc.dump(2) << keyed.errors;

  const std::string unique_test = "            data_tests:\n              - unique\n";
  const std::string with_status = unique_test +
                                  "          - name: status\n"
                                  "            data_tests:\n"
                                  "              - accepted_values:\n"
                                  "                  arguments:\n"
                                  "                    values: [placed, shipped, completed, cancelled]\n";
  project_->replace_in("models/staging/_sources.yml", unique_test, with_status);
  for (int i = 0; i < 2; ++i) {
    const RunResult red = run();
    EXPECT_EQ(red.doc.at("plan").at("summary").at("build"), 0) << red.doc.dump(2);
    expect_red_naming(red, "source_accepted_values_raw_orders_status");
    const json* gate = check_entry(red.doc, "raw.orders");
    ASSERT_NE(gate, nullptr) << red.doc.dump(2);
    EXPECT_EQ(gate->at("action"), "run") << gate->dump(2);
  }

  project_->replace_in("models/staging/_sources.yml", "completed, cancelled]", "completed, cancelled, returned]");
  const RunResult fixed = run();
  ASSERT_EQ(fixed.code, 0) << fixed.doc.dump(2) << fixed.errors;
  EXPECT_TRUE(ran("source_accepted_values_raw_orders_status"));

  const RunResult again = run();
  ASSERT_EQ(again.code, 0) << again.doc.dump(2) << again.errors;
  EXPECT_EQ(again.doc.at("run").at("outcome"), "reused") << again.doc.at("run").dump(2);
  const json* passed = check_entry(again.doc, "raw.orders");
  ASSERT_NE(passed, nullptr) << again.doc.dump(2);
  EXPECT_EQ(passed->at("action"), "skip") << passed->dump(2);
}

// A unit test edited so it fails, the model's code unchanged: dbt build runs a unit test only
// with its model's build, so ODS builds the model again while its checks have not passed.
TEST_P(ShopGate, AFailingUnitTestKeepsGatingItsModelUntilItPasses) {
  project_->replace_in("models/staging/_staging.yml", "amount: 19.99}", "amount: 19.98}");
  for (int i = 0; i < 2; ++i) {
    const RunResult red = run();
    EXPECT_EQ(decision(entry(red.doc.at("plan"), "stg_orders")), "build:checks_not_passed") << red.doc.dump(2);
    expect_red_naming(red, kUnitTest);
    EXPECT_EQ(status_of("model.shop.stg_orders"), "skipped");
    if (one_wave()) {
      EXPECT_EQ(status_of("model.shop.fct_orders"), "skipped");
    }
    EXPECT_NE(status_of("model.shop.fct_orders"), "success") << "built while its upstream's unit test failed";
  }

  project_->replace_in("models/staging/_staging.yml", "amount: 19.98}", "amount: 19.99}");
  const RunResult fixed = run();
  ASSERT_EQ(fixed.code, 0) << fixed.doc.dump(2) << fixed.errors;
  if (one_wave()) {
    EXPECT_EQ(status_of("model.shop.stg_orders"), "success");
  }

  const RunResult again = run();
  ASSERT_EQ(again.code, 0) << again.doc.dump(2) << again.errors;
  EXPECT_EQ(decision(entry(again.doc.at("plan"), "stg_orders")), "reuse:unchanged");
  expect_not_rerun(again, "stg_orders");
  EXPECT_FALSE(ran(kUnitTest)) << "a unit test that passed on this build ran again";
}

}  // namespace
}  // namespace ods::testing
