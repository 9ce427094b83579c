#pragma once
// The one ISO-8601 timestamp parser of ODS: what dbt, Kubernetes and ODS itself write
// ("2026-11-29T20:08:16.123456Z", "2026-01-02T11:00:00+00:00", "2026-11-29 20:12:38"). Pure and
// thread-safe.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ods {

// Microseconds since the Unix epoch (UTC). Accepts exactly
//   YYYY-MM-DD('T'|' ')HH:MM:SS['.'f{1,9}]['Z' | ±HH | ±HHMM | ±HH:MM]
// with a real calendar date (no 31 February; 29 February only in leap years), hours 0-23,
// minutes 0-59, seconds 0-60 (a leap second), offsets up to ±23:59; no zone means UTC; fractions
// beyond microseconds are truncated. nullopt for anything else, including trailing text.
std::optional<std::int64_t> parse_iso8601_micros(std::string_view text);

// "YYYY-MM-DDTHH:MM:SS.ffffffZ".
std::string format_iso8601_micros(std::int64_t micros);

// format_iso8601_micros(parse_iso8601_micros(text)), or nullopt.
std::optional<std::string> normalize_iso8601(std::string_view text);

}  // namespace ods
