#pragma once
// dbt's run_results.json (schema v6): what a dbt command did, and whether it may be
// recorded as ODS state (ADR-0013 "Commands", `ods state record`).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ods/base/result.h"
#include "ods/dbt/artifacts.h"
#include "ods/planner/planner.h"

namespace ods::dbt {

inline constexpr std::string_view kRunResultsSchemaV6 = "https://schemas.getdbt.com/dbt/run-results/v6.json";

struct NodeResult {
  std::string unique_id;
  std::string status;              // "success", "error", "skipped", "pass", "fail", "warn", ...
  std::string execute_started_at;  // ISO-8601 UTC of the "execute" timing; "" when it did not execute
  std::string message;
  double execution_seconds = 0;  // dbt's execution_time; 0 when not reported
};

struct RunResults {
  std::string invocation_id;
  std::string generated_at;  // ISO-8601 UTC (when the file was written)
  // When the command started, ISO-8601 UTC: metadata.invocation_started_at, else the
  // earliest timing of any result, else generated_at minus elapsed_time.
  std::string started_at;
  std::string command;  // args.which ("build", "run", "compile", ...); "" when not recorded
  bool empty = false;   // args.empty (dbt --empty)
  bool sample = false;  // args.sample set (dbt --sample): relations hold a sample of the data
  double elapsed_seconds = 0;
  std::vector<NodeResult> results;
};

// Reads run_results.json (streamed; compiled code in results is skipped).
// Errors: "missing_artifact", "unsupported_schema" (not run-results v6, naming the version
// found), "invalid_artifact" (not JSON or a field of the wrong type, naming the field).
// Thread-safe.
[[nodiscard]] Result<RunResults> read_run_results(const std::filesystem::path& path);

// Whether `run` is a real build of the manifest's code, decidable from artifacts alone
// (the state-dependent refusals, "already recorded" and "stale_run", belong to record()).
// Errors, first match wins, nothing is recorded:
//   "no_project_name"     the manifest has no project name;
//   "unknown_command"     run_results.json does not say which command wrote it;
//   "not_a_build"         the command builds nothing (anything but build, run, seed, snapshot);
//   "empty_run"           a --empty run (relations hold no rows);
//   "sample_run"          a --sample run (relations hold a sample);
//   "invocation_mismatch" the manifest was written by another dbt invocation.
[[nodiscard]] Result<void> check_recordable(const RunResults& run, const ManifestMeta& manifest);

// Whether `run` is a `dbt test` of the manifest's code, the run `ods state test` records
// (only its check results count; RunOutcome::checks_only). Errors, first match wins:
//   "no_project_name", "unknown_command" as above;
//   "not_a_test_run"      another command wrote run_results.json;
//   "invocation_mismatch" as above.
[[nodiscard]] Result<void> check_test_run(const RunResults& run, const ManifestMeta& manifest);

// The run as the planner's record() takes it:
//   node_status: status of each planned node in the results;
//   node_tests_passed / source_tests_passed: false when any of its checks ran and did not
//     pass ("pass" and "warn" pass); true when every one of its current checks ran and
//     passed; absent when only some ran (all passing) or none ran (a check dbt skipped
//     after a failure upstream of it did not run);
//   source_versions: the sources.json versions observed strictly before the run started.
// Errors: "invalid_artifact" when started_at or an observed_at is not an ISO-8601 time.
[[nodiscard]] Result<planner::RunOutcome> to_run_outcome(const RunResults& run, const DbtProject& project);

}  // namespace ods::dbt
