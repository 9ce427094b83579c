#include "ods/dbt/cli/dbt_command_adapter.h"

#include "ods/dbt/cli/dbt_invocation.h"
#include "ods/dbt/cli/interrupt_forwarding.h"

namespace ods::dbt {
namespace {

class ProcessDbtCommand final : public dbt::DbtCommand {
 public:
  ProcessDbtCommand(process::ProcessLauncher& launcher, DbtCommandOptions options)
      : launcher_(launcher), options_(std::move(options)) {}

  Result<dbt::DbtCommandResult> run(const std::vector<std::string>& args) override {
    return run_dbt_command(launcher_, options_, args);
  }

 private:
  process::ProcessLauncher& launcher_;
  DbtCommandOptions options_;
};

}  // namespace

Result<dbt::DbtCommandResult> run_dbt_command(process::ProcessLauncher& launcher, const DbtCommandOptions& options,
                                              const std::vector<std::string>& args,
                                              const std::function<void(const DbtProgress&)>& on_progress) {
  DbtInvocationOptions invocation_options;
  invocation_options.dbt = options.dbt;
  invocation_options.args = args;
  invocation_options.project_dir = options.project_dir;
  invocation_options.profiles_dir = options.profiles_dir;
  invocation_options.env = options.env;
  invocation_options.interrupt_grace = options.interrupt_grace;
  DbtInvocation invocation(launcher, std::move(invocation_options));

  dbt::DbtCommandResult out;
  invocation.set_event_callback([&out](const DbtEvent& event) {
    if (!event.is_plain()) out.events.push_back(event.line);
  });
  if (on_progress) invocation.set_progress_callback(on_progress);
  auto ran = options.forward_interrupts ? run_forwarding_interrupts(invocation) : invocation.run();
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
  if (ran->outcome == DbtOutcome::failed && out.exit_code == 0) out.exit_code = 1;
  return out;
}

std::unique_ptr<dbt::DbtCommand> make_dbt_command(process::ProcessLauncher& launcher, DbtCommandOptions options) {
  return std::make_unique<ProcessDbtCommand>(launcher, std::move(options));
}

}  // namespace ods::dbt
