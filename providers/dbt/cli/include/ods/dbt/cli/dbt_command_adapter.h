#pragma once
// The dbt provider's DbtCommand (providers/dbt/include/ods/dbt/dbt_command.h) over a real
// dbt child process: what the runner hands to make_show_probe and other provider pieces.
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ods/dbt/cli/dbt_progress.h"
#include "ods/dbt/dbt_command.h"
#include "ods/process/child_process.h"

namespace ods::dbt {

struct DbtCommandOptions {
  std::filesystem::path dbt;           // the executable (resolve_dbt_binary)
  std::filesystem::path project_dir;   // dbt's working directory
  std::filesystem::path profiles_dir;  // passed as --profiles-dir when not empty
  std::vector<std::pair<std::string, std::string>> env;
  // Forward SIGINT/SIGTERM to dbt while it runs (run_forwarding_interrupts). Off when the
  // caller already forwards them around a larger operation (only one forwarder per process).
  bool forward_interrupts = true;
  std::chrono::milliseconds interrupt_grace{30'000};
};

// `launcher` is not owned and must outlive the command. run() maps a DbtInvocation's result:
// events = the JSON event lines in order, error_text = DbtRunResult::error_text(),
// interrupted = outcome DbtOutcome::interrupted. Its errors: "dbt_not_found" when the binary is missing,
// "spawn_failed" for any other failure to start or to read dbt's output, "usage" for a
// --log-format among the args, "conflict" when forward_interrupts is on while another
// SignalForwarder is installed. Not thread-safe: one run at a time.
std::unique_ptr<dbt::DbtCommand> make_dbt_command(process::ProcessLauncher& launcher, DbtCommandOptions options);

// One `dbt <args>` run with the result and errors of make_dbt_command's run(), calling
// `on_progress` (may be empty) whenever dbt's progress changed. A run that did not succeed
// always has a non-zero exit_code (a killed dbt has none of its own) unless interrupted.
[[nodiscard]] Result<dbt::DbtCommandResult> run_dbt_command(
    process::ProcessLauncher& launcher, const DbtCommandOptions& options, const std::vector<std::string>& args,
    const std::function<void(const DbtProgress&)>& on_progress = {});

}  // namespace ods::dbt
