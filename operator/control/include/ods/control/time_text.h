#pragma once
// Kubernetes timestamps (RFC 3339 in UTC, "2026-11-30T06:00:00Z", as metav1.Time writes them).
#include <optional>
#include <string>
#include <string_view>

#include "ods/base/clock.h"

namespace ods::control {

// "YYYY-MM-DDTHH:MM:SSZ", truncated to the second.
std::string format_time(TimePoint time);
// The time in `text` (fractional seconds and offsets accepted); nullopt when it is not one.
std::optional<TimePoint> parse_time(std::string_view text);

}  // namespace ods::control
