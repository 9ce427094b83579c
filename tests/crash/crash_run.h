#pragma once
// Crash tests: one `ods state run` on a copy of examples/shop, watched while it runs, so a
// test can say which step it is in (from the runner's progress lines and dbt's artifacts) and
// kill it (with everything it started) at a chosen moment of a chosen step.
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/dbt_project.h"

namespace ods::testing {

// The steps of `ods state run`, in order. `record` starts when dbt build has written its
// run_results.json and ends when ods exits; in a run of several waves (early cutoff) each wave's
// build is `build` and what follows it until the next wave starts is `record`.
enum class RunPhase { compile, probe, build, record, exited };
std::string phase_name(RunPhase phase);

// What dbt reported per node (unique id -> status) in one run_results.json.
using DbtStatuses = std::map<std::string, std::string>;

// One run_results.json as dbt wrote it: its invocation id, its command (`args.which`: "build",
// "compile", ...) and what it reported per node.
struct DbtReport {
  std::string invocation_id;
  std::string command;
  DbtStatuses statuses;
};

// The run_results.json at `path`; nullopt while it can't be parsed (absent, or dbt is still
// writing it).
std::optional<DbtReport> read_dbt_report(const std::filesystem::path& path);

struct WatchedRun {
  // When each step was first seen, in seconds after the start.
  std::map<RunPhase, double> seen;
  // The step the run was in when it was killed (or, with an `instead` action, when the action
  // ran); nullopt when it ended on its own first.
  std::optional<RunPhase> killed_in;
  int exit_code = -1;  // when it ended on its own (also after an `instead` action)
  std::string log;     // stdout and stderr
  // Every run_results.json dbt wrote while the run was watched, by dbt invocation id: a run of
  // several waves writes one per wave, each replacing the last on disk.
  std::map<std::string, DbtStatuses> dbt_results;
};

// Runs `ods state run <extra>` on `p` (its output in <dir>/ods-crash.log). With `kill_phase`
// set, kills the process tree `kill_after` seconds after that step was first seen (if the run
// gets there); otherwise waits for it to end. With `instead` set, runs it at that moment
// rather than killing ods (something else dies: the state server, say) and waits for ods to
// end. Fails the test when it does not end within `deadline`.
WatchedRun watch_ods_run(const DbtProject& p, const std::vector<std::string>& extra,
                         std::optional<RunPhase> kill_phase = std::nullopt, double kill_after = 0,
                         std::chrono::seconds deadline = std::chrono::seconds(900),
                         const std::function<void()>& instead = nullptr);

// How many waves `log` (an `ods state run`'s output) shows started ("ods: wave N: building
// ..."): 0 for a run in one wave, which prints none.
std::size_t waves_started(const std::string& log);

// How long each step (compile, probe, build, record) of an uninterrupted `run` took, into
// `duration`: "" or which step was not seen.
std::string step_durations(const WatchedRun& run, std::map<RunPhase, double>& duration);

}  // namespace ods::testing
