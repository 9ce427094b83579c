#include "ods/dbt/cli/interrupt_forwarding.h"

#include <atomic>

#include "ods/process/signal_forwarder.h"

namespace ods::dbt {

Result<DbtRunResult> run_forwarding_interrupts(DbtInvocation& invocation) {
  std::atomic<bool> signalled{false};
  auto forwarder = process::SignalForwarder::install([&](int) {
    signalled.store(true);
    invocation.interrupt();
  });
  if (!forwarder) return std::unexpected(forwarder.error());
  auto result = invocation.run();
  forwarder->reset();  // previous handlers back; every signal caught until then is delivered
  if (result && signalled.load()) {
    result->outcome = DbtOutcome::interrupted;
    result->exit.interrupted = true;
  }
  return result;
}

}  // namespace ods::dbt
