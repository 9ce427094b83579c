#pragma once
// Ctrl-C while dbt runs: SIGINT and SIGTERM to ods go to the running dbt (which stops cleanly
// on SIGINT) through the generic SignalForwarder (ods/process/signal_forwarder.h).
#include "ods/base/result.h"
#include "ods/dbt/cli/dbt_invocation.h"

namespace ods::dbt {

// Runs `invocation` with SIGINT and SIGTERM forwarded to it: the first one sends dbt SIGINT,
// a second escalates at once (SIGTERM, then SIGKILL), otherwise the grace periods apply.
// A run during which a signal arrived is DbtOutcome::interrupted, even if dbt finished meanwhile, so the
// caller records nothing half-done. The previous handlers are back when it returns.
// Errors: SignalForwarder::install's, and invocation.run()'s.
[[nodiscard]] Result<DbtRunResult> run_forwarding_interrupts(DbtInvocation& invocation);

}  // namespace ods::dbt
