#pragma once
// ISO-8601 timestamps as dbt writes them ("2026-11-29T20:08:16.123456Z", "+00:00", or naive,
// which is read as UTC). Pure and thread-safe.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ods::planner {

// Microseconds since the Unix epoch; nullopt when `text` is not such a timestamp.
std::optional<std::int64_t> parse_iso8601_micros(std::string_view text);
// "YYYY-MM-DDTHH:MM:SS.ffffffZ".
std::string format_iso8601_micros(std::int64_t micros);
// "2h 5m", "3d 4h", "45s" — for sentences.
std::string describe_duration(std::int64_t seconds);

}  // namespace ods::planner
