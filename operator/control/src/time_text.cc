#include "ods/control/time_text.h"

#include <cstdio>

#include "ods/base/iso8601.h"

namespace ods::control {

std::string format_time(TimePoint time) {
  const auto seconds = std::chrono::floor<std::chrono::seconds>(time);
  const auto day = std::chrono::floor<std::chrono::days>(seconds);
  const std::chrono::year_month_day date{day};
  const std::chrono::hh_mm_ss clock{seconds - day};
  char text[32];
  std::snprintf(text, sizeof text, "%04d-%02u-%02u%s%02lld:%02lld:%02lldZ", static_cast<int>(date.year()),
                static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()), "T",
                static_cast<long long>(clock.hours().count()), static_cast<long long>(clock.minutes().count()),
                static_cast<long long>(clock.seconds().count()));
  return text;
}

std::optional<TimePoint> parse_time(std::string_view text) {
  const auto micros = parse_iso8601_micros(text);
  if (!micros) return std::nullopt;
  return TimePoint{std::chrono::duration_cast<TimePoint::duration>(std::chrono::microseconds{*micros})};
}

}  // namespace ods::control
