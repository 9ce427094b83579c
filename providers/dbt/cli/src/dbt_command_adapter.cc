#include "ods/dbt/cli/dbt_command_adapter.h"

#include <chrono>
#include <optional>

#include "ods/base/elapsed.h"
#include "ods/dbt/cli/interrupt_forwarding.h"

namespace ods::dbt {

Result<dbt::DbtCommandResult> run_dbt_command(process::ProcessLauncher& launcher, DbtInvocationOptions options,
                                              const std::function<void(const DbtProgress&)>& on_progress) {
  const bool forward_interrupts = options.forward_interrupts;
  DbtInvocation invocation(launcher, std::move(options));

  dbt::DbtCommandResult out;
  invocation.set_event_callback([&out](const DbtEvent& event) {
    if (!event.is_plain()) out.events.push_back(event.line);
  });
  using Clock = std::chrono::steady_clock;
  const Clock::time_point started = Clock::now();
  std::optional<Clock::time_point> first_node;
  int finished = 0;
  invocation.set_progress_callback([&](const DbtProgress& progress) {
    if (!first_node && progress.started() > 0) first_node = Clock::now();
    if (first_node && progress.finished() > finished) {
      finished = progress.finished();
      out.node_seconds = seconds_since(*first_node);
    }
    if (on_progress) on_progress(progress);
  });
  auto ran = forward_interrupts ? run_forwarding_interrupts(invocation) : invocation.run();
  out.seconds = seconds_since(started);
  if (!ran) {
    const Error& error = ran.error();
    if (error.code == "not_found") return fail("dbt_not_found", error.message);
    if (error.code == "usage" || error.code == "conflict" || error.code == "unsupported_dbt" ||
        error.code == "dbt_failed")
      return std::unexpected(error);
    return fail("spawn_failed", error.message);
  }
  out.exit_code = ran->exit.exit_code;
  out.interrupted = ran->outcome == DbtOutcome::interrupted;
  out.error_text = ran->error_text();
  out.invocation_id = ran->invocation_id;
  if (ran->outcome == DbtOutcome::failed && out.exit_code == 0) out.exit_code = 1;
  return out;
}

}  // namespace ods::dbt
