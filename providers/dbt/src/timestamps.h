#pragma once
// ISO-8601 timestamps as dbt writes them ("2026-01-02T11:00:00+00:00",
// "2026-11-29T20:12:38.727495Z", "2026-11-29T20:12:38"), compared as instants.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ods::dbt::internal {

// Microseconds since the Unix epoch (UTC). nullopt when `text` is not
// "YYYY-MM-DD[T ]HH:MM:SS[.f{1,9}][Z|±HH:MM|±HHMM]" (no zone means UTC). Pure.
std::optional<std::int64_t> parse_iso8601(std::string_view text);

// "YYYY-MM-DDTHH:MM:SS.ffffffZ". Pure.
std::string format_iso8601(std::int64_t micros);

// format_iso8601(parse_iso8601(text)), or nullopt. Pure.
std::optional<std::string> normalize_iso8601(std::string_view text);

}  // namespace ods::dbt::internal
