#pragma once
// What `ods state pr` reports (docs/cli.md, "PR environments"): the nodes built in the PR's
// target with their reasons and dbt's status, those read from production (deferred or cloned),
// the tests dbt ran with the build and their results; as a terminal line, the JSON document
// ({"plan", "pr", "summary"}) and the Markdown of plan_markdown.h, delivered as the flags ask.
#include <map>
#include <string>
#include <vector>

#include "context.h"
#include "ods/dbt/run_results.h"
#include "ods/planner/inputs.h"
#include "ods/run/pr_environment.h"

namespace ods::cli {

struct PrOutcome {
  std::string prod_scope;  // the production scope whose recorded state was read
  std::string pr_target;   // the dbt target the PR builds into
  std::string upstream;    // "defer" | "clone": how the PR reads production's relations
  run::PrSelection selection;
  std::vector<std::string> dbt_selection;  // the `dbt build --select` arguments ("" when nothing built)
  // dbt's results of the PR's build (and clone), by unique_id; empty when dbt did not run.
  std::map<std::string, dbt::NodeResult> results;
  bool failed = false;            // dbt failed (or could not report what it did)
  std::string dbt_errors;         // dbt's error text when it failed
  double time_saved_seconds = 0;  // production's last build times of the nodes not built here
};

struct PrCounts {
  int built = 0, failed = 0, skipped = 0;
  int tests_passed = 0, tests_failed = 0, tests_warned = 0, tests_skipped = 0;
};
// The counts of `outcome`: the selection's BUILD nodes by dbt's status (success; error or
// fail; skipped), the tests by theirs (pass; fail or error; warn; skipped).
PrCounts count_pr(const PrOutcome& outcome);

// "not_null_orders_id" for "test.shop.not_null_orders_id.abc123", "fct_orders::name" for
// "unit_test.shop.fct_orders.name"; other ids as they are.
std::string test_name(const std::string& unique_id);

// The terminal line (text format), then the JSON document and the Markdown as the flags ask
// (deliver_report). False when a --summary or --json-file could not be written.
[[nodiscard]] bool deliver_pr_report(const CommandContext& ctx, const PrOutcome& outcome);

}  // namespace ods::cli
