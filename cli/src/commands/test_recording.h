#pragma once
// The end of `ods state test`: record what `dbt test` found (passes set `tested`, failures
// clear it, no build changes), write the run ledger entry, print a summary.
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "context.h"
#include "ods/contracts/state_store.h"
#include "ods/dbt/dbt_command.h"
#include "ods/planner/checks.h"
#include "project_loader.h"
#include "state_access.h"

namespace ods::cli {

struct TestRun {
  std::string scope;
  contracts::StateStore& store;
  Head head;  // the state the checks were decided against
  planner::CheckPlan checks;
  std::map<std::string, planner::DataVersion> source_versions;  // measured before dbt test started
  std::chrono::steady_clock::time_point started;
};

// What `dbt test --select` gets for the checks to run: node names and source:<source>.<table>.
std::vector<std::string> check_selection(const planner::CheckPlan& checks);

// No dbt test: a dry run (`dry_run`) or nothing to test. Prints the JSON document
// ({"checks", "run", "summary"}) and the Markdown as the flags ask; records nothing.
int finish_without_tests(const CommandContext& ctx, const TestRun& run, bool dry_run);

// dbt test ran (its checks may have failed): record its run_results.json against `planned`,
// the project the checks were decided on (of the manifest dbt test wrote only the metadata is
// read, when `one_parse`: DbtSession::one_parse), or against that manifest when dbt test
// parsed the project itself (project_as_run.h, rule 2); then summarise. The run document's `recorded_from` says
// which: "plan" or "manifest" (read again). Returns kExitOk when every check passed and the
// state was committed; kExitFailed when a check failed (dbt's failure text is shown), dbt
// failed before testing, or the commit failed.
int record_test_run(const CommandContext& ctx, TestRun& run, const LoadedProject& planned, bool one_parse,
                    const dbt::DbtCommandResult& dbt_test);

}  // namespace ods::cli
