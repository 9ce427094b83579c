#pragma once
// One dbt command as the dbt provider's DbtCommand reports it (providers/dbt/include/ods/dbt/
// dbt_command.h): a DbtInvocation run to its end, with Ctrl-C forwarded, its events and error
// text kept. The runner's dbt session (cli/src/shared/dbt_session.h) runs every call through it.
#include <functional>

#include "ods/dbt/cli/dbt_invocation.h"
#include "ods/dbt/cli/dbt_progress.h"
#include "ods/dbt/dbt_command.h"
#include "ods/process/child_process.h"

namespace ods::dbt {

// Runs `dbt <options.args>` (DbtInvocation; `launcher` is not owned) and calls `on_progress`
// (may be empty) whenever dbt's progress changed. The result: events = the JSON event lines in
// order, error_text = DbtRunResult::error_text(), interrupted = outcome DbtOutcome::interrupted,
// seconds = the call's wall time, node_seconds = from the first node started to the last node
// finished as their events arrived (DbtProgress; 0 when no node ran). A run that
// did not succeed always has a non-zero exit_code (a killed dbt has none of its own) unless
// interrupted. Errors: "dbt_not_found" when the binary is missing, "spawn_failed" for any other
// failure to start or to read dbt's output, "usage" for a --log-format among the args,
// "conflict" when options.forward_interrupts is on while another SignalForwarder is installed,
// and the launcher's "unsupported_dbt" and "dbt_failed" as they are. Blocks until dbt ended.
[[nodiscard]] Result<dbt::DbtCommandResult> run_dbt_command(
    process::ProcessLauncher& launcher, DbtInvocationOptions options,
    const std::function<void(const DbtProgress&)>& on_progress = {});

}  // namespace ods::dbt
