#pragma once
// The clock a state store stamps commits and migrations with. Injected so tests (and the
// planner's "now") stay deterministic.
#include <functional>
#include <string>

namespace ods::state {

// Returns "now" as ISO-8601 UTC with microseconds, e.g. "2026-10-04T12:34:56.123456Z".
// Must be safe to call from several threads at once.
using Clock = std::function<std::string()>;

// The system clock in the format above. Thread-safe.
Clock system_clock();

}  // namespace ods::state
