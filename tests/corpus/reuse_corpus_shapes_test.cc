// The reuse corpus's project shapes (issue 27, item 4; corpus/reuse_corpus.h): small dbt projects
// on DuckDB under tests/corpus/projects/, each taken through a sequence of steps; after each,
// `ods state run` (under `--cutoff always` and the default `auto`) is judged against `dbt build` on an identical copy
// (its exit status and its rows) and against a full build from scratch. Asserts, per project, 0 wrong reuses, 0 built
// relations whose rows differ from a control's and 0 steps whose exit status differs from dbt build's; prints reused /
// unchanged per step (docs/early-cutoff.md).
//   increments  incremental models (append, merge, delete+insert, a lookback window over
//               {{ this }}), an ephemeral model, a Python model, a singular data test that
//               fails and later passes, a project-wide post-hook;
//   snapshots   timestamp and check strategies, hard deletes (invalidate, new_record);
//   packaged    a local package's models run from an integration project (dbt deps, no
//               network), its dispatched macro overridden by the root project, a versioned
//               model with an enforced contract (one step breaks it).
#include <gtest/gtest.h>

#include <iostream>

#include "corpus/reuse_corpus.h"
#include "harness/shop_baseline.h"

namespace ods::testing {
namespace {

// A key for the keyed digest of hooks that read env_var/var/target (docs/hook-digest.md).
const char* const kDigestKey = "ODS_DIGEST_KEY=ods-corpus-test-key-not-a-secret";

void sql_step(DbtProject& p, const std::string& statements) { ODS_ASSERT_OK(p.sql(statements)); }

// A copy of tests/corpus/projects/<name> with its raw tables created (its setup.sql).
DbtProject corpus_project(const std::string& name) {
  DbtProject p = DbtProject::copy_of_directory(source_dir() / "tests" / "corpus" / "projects" / name);
  p.use_duckdb_file("corpus.duckdb");
  p.add_env({kDigestKey});
  ProcessResult setup = p.sql(p.read("setup.sql"));
  EXPECT_EQ(setup.exit_code, 0) << setup.output << setup.errors;
  return p;
}

void run_steps(ReuseCorpus& corpus, const std::vector<CorpusStep>& steps) {
  for (const auto& s : steps) {
    corpus.step(s);
    if (::testing::Test::HasFatalFailure()) break;
  }
}

// `keyed`: some node of the project can be keyed, so the differential must see a recorded SQL
// kept (the increments' models all read is_incremental(), which is never keyed).
void expect_never_wrong(const ReuseCorpus& corpus, const std::string& title, bool keyed = true) {
  corpus.report(std::cout, title + " --cutoff " + corpus.cutoff());
  EXPECT_EQ(corpus.wrong_total(), 0) << "a reused relation's rows differ from a control's";
  EXPECT_EQ(corpus.diverged_total(), 0) << "a built relation's rows differ from a control's";
  EXPECT_EQ(corpus.exit_mismatch_total(), 0) << "ods state run's exit status differs from dbt build's";
  EXPECT_EQ(corpus.keyed_mismatch_total(), 0) << "a keyed compile's fingerprint differs from a full compile's";
  EXPECT_EQ(corpus.parse_mismatch_total(), 0) << "a run on a reused parse has a fingerprint a full compile has not";
  EXPECT_GT(corpus.parse_reused_total(), 0) << "no run stood on an earlier parse's manifest";
  if (keyed) {
    EXPECT_GT(corpus.keyed_taken_total(), 0) << "the keyed compile never kept a recorded compiled SQL";
  }
  EXPECT_GT(corpus.unchanged_total(), 0);
}

class ReuseCorpusShapes : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(Cutoff, ReuseCorpusShapes, cutoff_modes(), cutoff_mode_name);

TEST_P(ReuseCorpusShapes, Increments) {
  DbtProject p = corpus_project("increments");
  ASSERT_FALSE(HasFailure());
  ReuseCorpus corpus(p,
                     {"stg_events", "events_merge", "events_delete_insert", "clicks_append", "readings_lookback",
                      "customer_totals", "customer_activity", "status_totals"},
                     {"--cutoff", GetParam()});
  ASSERT_TRUE(corpus.start());
  const std::vector<CorpusStep> steps{
      {"nothing changed", [](DbtProject&) {}},
      {"4 events appended",
       [](DbtProject& q) {
         sql_step(q,
                  "insert into raw.events select range, range % 5, (range * 37 % 200)::decimal(10, 2), 'placed', "
                  "timestamp '2026-02-01' + to_hours(range) from range(41, 45)");
       }},
      {"an event updated (amount, updated_at moved)",
       [](DbtProject& q) {
         sql_step(q, "update raw.events set amount = amount + 1, updated_at = timestamp '2026-03-01' where id = 7");
       }},
      {"a late reading inside the lookback window",
       [](DbtProject& q) { sql_step(q, "insert into raw.readings values (31, 'sensor-1', date '2026-01-09', 9.9)"); }},
      {"5 clicks appended",
       [](DbtProject& q) {
         sql_step(q,
                  "insert into raw.clicks select range, range % 7, timestamp '2026-02-01' + to_minutes(range) "
                  "from range(61, 66)");
       }},
      {"a negative amount: the data test fails",
       [](DbtProject& q) {
         sql_step(q, "insert into raw.events values (100, 1, -5, 'placed', timestamp '2026-03-02')");
       }},
      {"nothing changed while it fails", [](DbtProject&) {}},
      {"the negative amount corrected: the test passes",
       [](DbtProject& q) { sql_step(q, "update raw.events set amount = 5 where id = 100"); }},
      {"ephemeral model edited, same output (amounts are whole)",
       [](DbtProject& q) {
         q.replace_in("models/int_events_enriched.sql", "amount >= 100 as is_large", "amount > 99.5 as is_large");
       }},
      {"stg_events wrapped in select distinct (its rows were unique)",
       [](DbtProject& q) {
         q.replace_in("models/stg_events.sql", "select id, customer_id", "select distinct id, customer_id");
       }},
      {"project-wide post-hook added (an insert into audit_log)",
       [](DbtProject& q) {
         sql_step(q, "create table main.audit_log (model varchar, logged_at timestamp)");
         q.replace_in("dbt_project.yml", "    +materialized: table\n",
                      "    +materialized: table\n    +post-hook: \"insert into {{ target.schema }}.audit_log "
                      "select '{{ this.name }}', current_timestamp\"\n");
       }},
      {"nothing changed (with the post-hook)", [](DbtProject&) {}},
  };
  run_steps(corpus, steps);
  expect_never_wrong(corpus, "increments", /*keyed=*/false);
}

TEST_P(ReuseCorpusShapes, Snapshots) {
  DbtProject p = corpus_project("snapshots");
  ASSERT_FALSE(HasFailure());
  ReuseCorpus corpus(
      p, {"customers_by_time", "customers_by_check", "current_customers", "customer_versions", "tier_counts"},
      {"--cutoff", GetParam()});
  corpus.without_full_build_control();  // no incremental model
  // The times a snapshot takes differ between ods' run and the controls': judged on the
  // source's columns, whether the row is current, and (new_record) whether it marks a deletion.
  corpus.judge_columns("customers_by_time", "customer_id, name, tier, updated_at, dbt_valid_to is null as current");
  corpus.judge_columns("customers_by_check",
                       "customer_id, name, tier, updated_at, dbt_is_deleted, dbt_valid_to is null as current");
  ASSERT_TRUE(corpus.start());
  const std::vector<CorpusStep> steps{
      {"nothing changed", [](DbtProject&) {}},
      {"a customer's tier changed (updated_at moved)",
       [](DbtProject& q) {
         sql_step(q,
                  "update raw.customers set tier = 'gold', updated_at = timestamp '2026-02-01' where customer_id = 1");
       }},
      {"a customer renamed, updated_at not moved (only check sees it)",
       [](DbtProject& q) { sql_step(q, "update raw.customers set name = 'renamed' where customer_id = 2"); }},
      {"a customer deleted from the source (hard delete)",
       [](DbtProject& q) { sql_step(q, "delete from raw.customers where customer_id = 3"); }},
      {"a plan's fee changed (no snapshot reads plans)",
       [](DbtProject& q) { sql_step(q, "update raw.plans set monthly_fee = 35 where tier = 'gold'"); }},
      {"nothing changed", [](DbtProject&) {}},
      {"the deleted customer back, updated",
       [](DbtProject& q) {
         sql_step(q, "insert into raw.customers values (3, 'customer 3', 'gold', timestamp '2026-02-02')");
       }},
  };
  run_steps(corpus, steps);
  expect_never_wrong(corpus, "snapshots");
}

TEST_P(ReuseCorpusShapes, Packaged) {
  DbtProject p = corpus_project("packaged");
  ASSERT_FALSE(HasFailure());
  ProcessResult deps = p.dbt({"deps"});
  ASSERT_EQ(deps.exit_code, 0) << deps.output << deps.errors;
  ReuseCorpus corpus(p,
                     {"pkg_orders", "pkg_customer_orders", "orders_by_status", "dim_customers_v1", "dim_customers_v2"},
                     {"--cutoff", GetParam()});
  corpus.without_full_build_control();  // no incremental model
  ASSERT_TRUE(corpus.start());
  const std::vector<CorpusStep> steps{
      {"nothing changed", [](DbtProject&) {}},
      {"5 orders appended",
       [](DbtProject& q) {
         sql_step(q, "insert into raw.orders select range, range % 6, 'placed', range * 97 from range(51, 56)");
       }},
      {"the root's override of the package macro edited, same output",
       [](DbtProject& q) {
         q.replace_in("macros/amount.sql", "round({{ column }} / 100.0, 2)", "round(({{ column }}) / 100.0, 2)");
       }},
      {"the package's overridden default edited (unused)",
       [](DbtProject& q) {
         q.replace_in("packages/corpus_pkg/macros/amount.sql", "({{ column }} / 100.0)", "({{ column }} / 100.00)");
       }},
      {"a column added to dim_customers v2 and its contract",
       [](DbtProject& q) {
         q.replace_in("models/dim_customers_v2.sql", " as average_amount\n",
                      " as average_amount, orders > 8 as frequent\n");
         q.replace_in(
             "models/_models.yml", "            data_type: decimal(18, 2)\n",
             "            data_type: decimal(18, 2)\n          - name: frequent\n            data_type: boolean\n");
       }},
      {"v2 edited so it breaks its contract (dbt build fails)",
       [](DbtProject& q) {
         q.replace_in("models/dim_customers_v2.sql", "(amount / orders)::decimal(18, 2)", "amount / orders");
       }},
      {"the contract kept again (the edit reverted)",
       [](DbtProject& q) {
         q.replace_in("models/dim_customers_v2.sql", "amount / orders as", "(amount / orders)::decimal(18, 2) as");
       }},
      {"package model edited, same output (a filter every row passes)",
       [](DbtProject& q) {
         q.replace_in("packages/corpus_pkg/models/pkg_customer_orders.sql", " group by",
                      " where order_id is not null group by");
       }},
      {"the package's dispatching macro edited (a comment; same SQL)",
       [](DbtProject& q) {
         q.replace_in("packages/corpus_pkg/macros/amount.sql", "{% macro amount_in_dollars(column) -%}\n",
                      "{% macro amount_in_dollars(column) -%}\n  {# dispatched: see default__ below #}\n");
       }},
      {"pkg_orders wrapped in select distinct (its rows were unique)",
       [](DbtProject& q) {
         q.replace_in("packages/corpus_pkg/models/pkg_orders.sql", "select order_id", "select distinct order_id");
       }},
      {"nothing changed", [](DbtProject&) {}},
  };
  run_steps(corpus, steps);
  expect_never_wrong(corpus, "packaged");
}

}  // namespace
}  // namespace ods::testing
