#include "process/dbt_command_adapter.h"

#include "process/dbt_invocation.h"
#include "process/signal_forwarder.h"

namespace ods::process {
namespace {

class ProcessDbtCommand final : public dbt::DbtCommand {
 public:
  ProcessDbtCommand(ProcessLauncher& launcher, DbtCommandOptions options)
      : launcher_(launcher), options_(std::move(options)) {}

  Result<dbt::DbtCommandResult> run(const std::vector<std::string>& args) override {
    DbtInvocationOptions invocation_options;
    invocation_options.dbt = options_.dbt;
    invocation_options.args = args;
    invocation_options.project_dir = options_.project_dir;
    invocation_options.profiles_dir = options_.profiles_dir;
    invocation_options.env = options_.env;
    invocation_options.interrupt_grace = options_.interrupt_grace;
    DbtInvocation invocation(launcher_, std::move(invocation_options));

    dbt::DbtCommandResult out;
    invocation.set_event_callback([&out](const DbtEvent& event) {
      if (!event.is_plain()) out.events.push_back(event.line);
    });
    auto ran = options_.forward_interrupts ? run_forwarding_interrupts(invocation) : invocation.run();
    if (!ran) {
      const Error& error = ran.error();
      if (error.code == "not_found") return fail("dbt_not_found", error.message);
      if (error.code == "usage" || error.code == "conflict") return std::unexpected(error);
      return fail("spawn_failed", error.message);
    }
    out.exit_code = ran->exit.exit_code;
    out.interrupted = ran->outcome == DbtOutcome::kInterrupted;
    out.error_text = ran->error_text();
    return out;
  }

 private:
  ProcessLauncher& launcher_;
  DbtCommandOptions options_;
};

}  // namespace

std::unique_ptr<dbt::DbtCommand> make_dbt_command(ProcessLauncher& launcher, DbtCommandOptions options) {
  return std::make_unique<ProcessDbtCommand>(launcher, std::move(options));
}

}  // namespace ods::process
