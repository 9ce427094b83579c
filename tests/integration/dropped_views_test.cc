// A view dropped with its rebuilt upstream is built again (docs/warehouses.md, PostgreSQL;
// docs/reason-codes.md, dropped_with_upstream): dbt-postgres replaces a table by renaming the old
// relation and dropping it with CASCADE, and PostgreSQL binds a view to it by oid, so every view
// over fct_orders (and the view over that view) is gone once fct_orders is rebuilt. `dbt build`
// rebuilds them; a run of ODS that reuses them, or cuts them off because fct_orders came out with
// the rows they read, leaves them missing (and a table over them fails when it builds).
//
// On a real PostgreSQL, examples/shop with two views and a table over them: fct_orders is made to
// build (written in place outside ODS, or its code edited without changing its output), then
// `ods state run --cutoff <mode>`; its exit status and every relation of the chain (existence
// and rows) are compared with what `dbt build` of the same code gives on the same raw data.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "harness/postgres_shop.h"
#include "harness/shop_baseline.h"

namespace ods::testing {
namespace {

constexpr const char* kLoaded = "shop_dropped_views";

// The chain over fct_orders added to the copy: a view, a view over it, a table over that.
constexpr const char* kOrderAmounts =
    "{{ config(materialized='view') }}\nselect order_id, customer_id, amount from {{ ref('fct_orders') }}\n";
constexpr const char* kBigOrders =
    "{{ config(materialized='view') }}\nselect order_id, amount from {{ ref('v_order_amounts') }} where amount >= 50\n";
constexpr const char* kBigOrderTotals =
    "{{ config(materialized='table') }}\nselect count(*) as orders, sum(amount) as total from {{ ref('v_big_orders') "
    "}}\n";
const std::vector<std::string> kChain{"fct_orders", "v_order_amounts", "v_big_orders", "big_order_totals"};

class PostgresDroppedViews : public PostgresShopFixture, public ::testing::WithParamInterface<std::string> {
 protected:
  PostgresDroppedViews() : PostgresShopFixture(kLoaded) {}

  static void SetUpTestSuite() { load_shop_raw_tables(kLoaded); }

  void SetUp() override {
    PostgresShopFixture::SetUp();
    if (HasFatalFailure()) return;
    project_->write("models/marts/v_order_amounts.sql", kOrderAmounts);
    project_->write("models/marts/v_big_orders.sql", kBigOrders);
    project_->write("models/marts/big_order_totals.sql", kBigOrderTotals);
    const ProcessResult first = ods_state_run({"--format", "json"});
    ASSERT_EQ(first.exit_code, 0) << first.output << first.errors;
    ASSERT_EQ(missing(chain_contents()), "") << "the first run left relations missing";
  }

  // Each relation of the chain: "rows/hash" of its rows, or "missing".
  std::map<std::string, std::string> chain_contents() const {
    std::map<std::string, std::string> out;
    for (const auto& name : kChain) {
      const ProcessResult exists = pg_->psql("select to_regclass('main." + name + "') is not null", kDatabase);
      EXPECT_EQ(exists.exit_code, 0) << exists.errors;
      if (trimmed(exists.output) != "t") {
        out[name] = "missing";
        continue;
      }
      const ProcessResult rows = pg_->psql(
          "select count(*) || '/' || coalesce(sum(hashtext(t::text)::bigint), 0) from main." + name + " t", kDatabase);
      EXPECT_EQ(rows.exit_code, 0) << rows.errors;
      out[name] = trimmed(rows.output);
    }
    return out;
  }

  static std::string missing(const std::map<std::string, std::string>& contents) {
    std::string names;
    for (const auto& [name, value] : contents)
      if (value == "missing") names += (names.empty() ? "" : ", ") + name;
    return names;
  }

  static std::string trimmed(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
  }

  // `ods state run --cutoff <GetParam()>`, then `dbt build` of the same code on the same data:
  // the same exit status (0) and the same relations and rows.
  // Returns `ods state run`'s plan. Before the control, with cutoff on, the next run with nothing
  // changed reuses the whole chain (a view rebuilt only because it was dropped leaves its readers'
  // record good: its content, measured after its build, is the content they read). With `off` no
  // content is measured, so a table over such a view builds once more then (new_upstream_data).
  nlohmann::json expect_run_agrees_with_dbt_build() {
    const ProcessResult run = ods_state_run({"--format", "json", "--cutoff", GetParam()});
    const std::map<std::string, std::string> after_ods = chain_contents();
    const nlohmann::json next = run_plan({"--cutoff", GetParam()});
    for (const auto& name : kChain) {
      if (GetParam() == "off" && name == "big_order_totals") continue;
      EXPECT_EQ(decision(entry(next, name)).rfind("reuse:", 0), 0u) << "the run after: " << next.dump(2);
    }
    const ProcessResult control =
        project_->dbt({"build", "--target", "pg", "--profiles-dir", project_->dir().string()});
    const std::map<std::string, std::string> after_dbt = chain_contents();
    EXPECT_EQ(control.exit_code, 0) << control.output << control.errors;
    EXPECT_EQ(run.exit_code, control.exit_code) << run.output << run.errors;
    EXPECT_EQ(missing(after_ods), "") << "relations gone after `ods state run --cutoff " << GetParam() << "`\n"
                                      << run.output;
    EXPECT_EQ(after_ods, after_dbt);
    return output_json(run).value("plan", nlohmann::json::object());
  }
};

// fct_orders written in place outside ODS (its rows unchanged): its relation is not the recorded
// one, so it builds for data and comes out with the rows its readers read.
TEST_P(PostgresDroppedViews, AnUpstreamRebuiltWithTheSameRowsLeavesNoViewMissing) {
  ODS_ASSERT_OK(pg_->psql("update main.fct_orders set amount = amount", kDatabase));
  expect_run_agrees_with_dbt_build();
}

// fct_orders' code edited without changing its output: built for code, its output proven the one
// its readers read (columns and rows).
TEST_P(PostgresDroppedViews, AnUpstreamCodeEditWithTheSameOutputLeavesNoViewMissing) {
  project_->replace_in("models/marts/fct_orders.sql", "where o.amount >= {{ var('min_order_amount') }}",
                       "where o.amount >= {{ var('min_order_amount') }} and 1 = 1");
  expect_run_agrees_with_dbt_build();
}

// The view over fct_orders within its lag tolerance (meta.ods, not fingerprinted: set after the
// first run): even `--cutoff off` would reuse it while fct_orders builds for data.
TEST_P(PostgresDroppedViews, AViewWithinItsLagToleranceIsNotLeftDropped) {
  project_->write("models/marts/_chain.yml",
                  "version: 2\nmodels:\n  - name: v_order_amounts\n    config:\n      meta:\n        ods:\n"
                  "          lag_tolerance: 2h\n");
  ODS_ASSERT_OK(pg_->psql("update main.fct_orders set amount = amount", kDatabase));
  const nlohmann::json plan = expect_run_agrees_with_dbt_build();
  EXPECT_EQ(decision(entry(plan, "v_order_amounts")), "build:dropped_with_upstream") << plan.dump(2);
  EXPECT_EQ(decision(entry(plan, "v_big_orders")), "build:dropped_with_upstream") << plan.dump(2);
  // The table over them was spared: rebuilt with the same code over the same rows, the views hold
  // what it read.
  EXPECT_EQ(decision(entry(plan, "big_order_totals")).rfind("reuse:", 0), 0u) << plan.dump(2);
}

INSTANTIATE_TEST_SUITE_P(Cutoff, PostgresDroppedViews, ::testing::Values("always", "auto", "off"),
                         [](const ::testing::TestParamInfo<std::string>& mode) { return mode.param; });

}  // namespace
}  // namespace ods::testing
