#include "ods/base/iso8601.h"

#include <chrono>
#include <cstdio>

namespace ods {
namespace {

// Exactly `n` decimal digits at `pos`.
bool digits(std::string_view s, std::size_t pos, std::size_t n, int& out) {
  if (pos + n > s.size()) return false;
  out = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

// The zone from `pos` to the end ("", "Z", ±HH, ±HHMM, ±HH:MM) as seconds east of UTC.
std::optional<std::int64_t> zone_offset_seconds(std::string_view s, std::size_t pos) {
  if (pos == s.size()) return 0;
  if (s[pos] == 'Z') return pos + 1 == s.size() ? std::optional<std::int64_t>(0) : std::nullopt;
  if (s[pos] != '+' && s[pos] != '-') return std::nullopt;
  const int sign = s[pos] == '-' ? -1 : 1;
  int hours = 0, minutes = 0;
  if (!digits(s, pos + 1, 2, hours)) return std::nullopt;
  std::size_t next = pos + 3;
  if (next < s.size()) {
    if (s[next] == ':') ++next;
    if (!digits(s, next, 2, minutes) || next + 2 != s.size()) return std::nullopt;
  }
  if (hours > 23 || minutes > 59) return std::nullopt;
  return sign * (hours * 3600 + minutes * 60);
}

}  // namespace

std::optional<std::int64_t> parse_iso8601_micros(std::string_view s) {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (s.size() < 19 || !digits(s, 0, 4, year) || s[4] != '-' || !digits(s, 5, 2, month) || s[7] != '-' ||
      !digits(s, 8, 2, day) || (s[10] != 'T' && s[10] != ' ') || !digits(s, 11, 2, hour) || s[13] != ':' ||
      !digits(s, 14, 2, minute) || s[16] != ':' || !digits(s, 17, 2, second)) {
    return std::nullopt;
  }
  const std::chrono::year_month_day date{std::chrono::year(year), std::chrono::month(static_cast<unsigned>(month)),
                                         std::chrono::day(static_cast<unsigned>(day))};
  if (!date.ok() || hour > 23 || minute > 59 || second > 60) return std::nullopt;
  std::size_t pos = 19;
  std::int64_t fraction = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    int count = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      if (count < 6) fraction = fraction * 10 + (s[pos] - '0');
      ++count;
      ++pos;
    }
    if (count == 0 || count > 9) return std::nullopt;
    for (int i = count; i < 6; ++i) fraction *= 10;
  }
  const auto offset = zone_offset_seconds(s, pos);
  if (!offset) return std::nullopt;
  const auto days = std::chrono::sys_days(date).time_since_epoch().count();
  const std::int64_t seconds = static_cast<std::int64_t>(days) * 86400 + hour * 3600 + minute * 60 + second - *offset;
  return seconds * 1'000'000 + fraction;
}

std::string format_iso8601_micros(std::int64_t micros) {
  std::int64_t seconds = micros / 1'000'000;
  std::int64_t fraction = micros % 1'000'000;
  if (fraction < 0) {
    fraction += 1'000'000;
    --seconds;
  }
  std::int64_t days = seconds / 86400;
  std::int64_t in_day = seconds % 86400;
  if (in_day < 0) {
    in_day += 86400;
    --days;
  }
  const std::chrono::year_month_day date{std::chrono::sys_days(std::chrono::days(days))};
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%04d-%02u-%02uT%02d:%02d:%02d.%06dZ", static_cast<int>(date.year()),
                static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()), static_cast<int>(in_day / 3600),
                static_cast<int>(in_day % 3600 / 60), static_cast<int>(in_day % 60), static_cast<int>(fraction));
  return buffer;
}

std::optional<std::string> normalize_iso8601(std::string_view text) {
  const auto micros = parse_iso8601_micros(text);
  if (!micros) return std::nullopt;
  return format_iso8601_micros(*micros);
}

}  // namespace ods
