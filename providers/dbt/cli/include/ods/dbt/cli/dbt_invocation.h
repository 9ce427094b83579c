#pragma once
// One run of dbt as a child process: `dbt --log-format json <args> [--profiles-dir DIR]` in
// the project directory, its output read as JSON log events while it runs, and a result that
// tells a finished run from a failed or an interrupted one.
#include <chrono>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ods/base/result.h"
#include "ods/dbt/cli/dbt_event.h"
#include "ods/dbt/cli/dbt_progress.h"
#include "ods/process/child_process.h"

namespace ods::dbt {

struct DbtInvocationOptions {
  std::filesystem::path dbt;           // the executable, absolute (resolve_dbt_binary)
  std::vector<std::string> args;       // subcommand and its flags, e.g. {"build", "--select", "a+"}
  std::filesystem::path project_dir;   // dbt's working directory: the dbt project
  std::filesystem::path profiles_dir;  // passed as --profiles-dir when not empty
  // Added to ods's environment; PYTHONUNBUFFERED=1 is added too unless set here.
  std::vector<std::pair<std::string, std::string>> env;
  std::chrono::milliseconds interrupt_grace{30'000};  // SIGINT -> SIGTERM (process::ProcessSpec)
  std::chrono::milliseconds terminate_grace{5'000};   // SIGTERM -> SIGKILL
  std::size_t tail_lines = 40;                        // plain-text lines kept for the failure report
  // For run_dbt_command (DbtInvocation itself never forwards): forward SIGINT/SIGTERM to dbt
  // while it runs (run_forwarding_interrupts). Off when the caller already forwards them around
  // a larger operation (only one forwarder per process).
  bool forward_interrupts = true;
};

enum class DbtOutcome {
  succeeded,    // dbt exited 0
  failed,       // dbt exited non-zero or was killed, and nobody asked it to stop
  interrupted,  // interrupt() was called, or dbt stopped on a Ctrl-C: record nothing of this run
};

// "succeeded", "failed", "interrupted".
std::string_view to_string(DbtOutcome outcome);

struct DbtRunResult {
  DbtOutcome outcome = DbtOutcome::failed;
  // How the process ended. Default (exit_code 0) with interrupted = true when interrupt()
  // came before dbt was started, which it then never was.
  process::ExitStatus exit;
  // info.invocation_id of dbt's events; the same id is in the metadata of the artifacts this
  // run wrote (run_results.json), so a reader can tell them from an older run's. "" if none.
  std::string invocation_id;
  DbtProgress progress;                     // final state
  std::vector<std::string> error_messages;  // msg of every error-level event, ANSI codes removed, in order
  std::vector<std::string> output_tail;     // the last plain-text lines: stderr and non-JSON stdout

  // For a person, when the run did not succeed: what happened (exit code or signal), then
  // for a failure dbt's error messages and the plain-text tail; for an interruption only that
  // it was interrupted and nothing is recorded. "" for a successful run.
  [[nodiscard]] std::string error_text() const;
};

class DbtInvocation {
 public:
  // `launcher` is not owned and must outlive the invocation.
  DbtInvocation(process::ProcessLauncher& launcher, DbtInvocationOptions options);

  // The argv run() starts: dbt, "--log-format", "json", args..., then "--profiles-dir", dir
  // when a profiles dir is set. (--log-format is a global flag of dbt 1.10, accepted before
  // the subcommand, so the position holds for every subcommand.)
  [[nodiscard]] std::vector<std::string> command_line() const;

  // Called for every output line (events and plain text), in order, on run()'s thread.
  void set_event_callback(std::function<void(const DbtEvent&)> callback);
  // Called after an event changed the progress (a node started or finished, the total, the summary).
  void set_progress_callback(std::function<void(const DbtProgress&)> callback);

  // Runs dbt to its end; call once. Any way dbt ends is a value (see DbtOutcome).
  // Errors: "usage" when args contain --log-format (ODS reads JSON events); the launcher's
  // "not_found" / "permission_denied" / "spawn_failed" when dbt cannot be started; "io"
  // when its output cannot be read (dbt is then killed). An exception thrown by a callback
  // propagates, and dbt is killed before it leaves run().
  [[nodiscard]] Result<DbtRunResult> run();

  // Asks dbt to stop: SIGINT to its process group, escalating to SIGTERM and SIGKILL after
  // the grace periods, or at once on a repeated call. Before run(): run() returns DbtOutcome::interrupted
  // without starting dbt. After dbt ended: no effect. Thread-safe; not for signal handlers
  // (use SignalForwarder).
  void interrupt();

 private:
  void handle_line(DbtRunResult& result, process::Stream stream, std::string_view line);

  process::ProcessLauncher& launcher_;
  DbtInvocationOptions options_;
  std::function<void(const DbtEvent&)> on_event_;
  std::function<void(const DbtProgress&)> on_progress_;

  std::mutex mu_;
  bool interrupt_requested_ = false;            // guarded by mu_
  process::RunningProcess* running_ = nullptr;  // guarded by mu_; owned by run() while dbt runs
};

}  // namespace ods::dbt
