#pragma once
// `--metrics-file FILE` and `--pushgateway URL` of `ods state run|test`: the scope's run metrics
// (ods/run/run_metrics.h, the totals the state store keeps) written as OpenMetrics text and
// pushed to a Prometheus Pushgateway. docs/metrics.md, "Metrics from ods state run and test".
#include <optional>
#include <string>

#include "context.h"
#include "ods/contracts/state_store.h"
#include "ods/run/run_metrics.h"

namespace ods::cli {

// The Pushgateway group of `scope`: "/metrics/job/ods/project@base64/<scope, base64url>" (the
// grouping key {job="ods", project=<scope>}; base64 because a scope holds a '/').
std::string pushgateway_group_path(const std::string& scope);

// Delivers what the flags in `args` ask for (nothing when neither is given): `totals`, else (this
// command recorded none) the scope's newest totals in `store`. A file that cannot be written is
// reported and returns kExitFailed; a push that fails is a warning on stderr (the run itself is
// recorded) and keeps `code`. Returns `code` otherwise.
int deliver_metrics(const CommandContext& ctx, const ParsedArgs& args, contracts::StateStore& store,
                    const std::string& scope, const std::optional<run::RunMetrics>& totals, int code);

// A scope without run metrics yet (its first run with --pushgateway): pushes its totals at 0
// before the run starts, so that a Prometheus scraping the Pushgateway during the run sees the
// counters at 0 and increase() counts the first run too. A failure is a warning on stderr.
void announce_scope(const CommandContext& ctx, contracts::StateStore& store, const std::string& scope,
                    const std::string& pushgateway);

// PUTs `text` (Prometheus text format 0.0.4) to `base_url` + pushgateway_group_path(scope),
// replacing the group's metrics. Errors: "unavailable" (unreachable, or an answer other than 2xx,
// with its status and body), "invalid_url".
[[nodiscard]] Result<void> push_metrics(const std::string& base_url, const std::string& scope, const std::string& text);

}  // namespace ods::cli
