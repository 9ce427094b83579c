#include "ods/planner/iso_time.h"

#include <charconv>
#include <chrono>
#include <cstdio>

namespace ods::planner {

namespace {

bool read_int(std::string_view s, std::size_t pos, std::size_t len, int& out) {
  if (pos + len > s.size()) return false;
  auto [p, ec] = std::from_chars(s.data() + pos, s.data() + pos + len, out);
  return ec == std::errc() && p == s.data() + pos + len;
}

}  // namespace

std::optional<std::int64_t> parse_iso8601_micros(std::string_view s) {
  int y, mo, d, h, mi, se;
  if (s.size() < 19 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != ' ') || s[13] != ':' || s[16] != ':')
    return std::nullopt;
  if (!read_int(s, 0, 4, y) || !read_int(s, 5, 2, mo) || !read_int(s, 8, 2, d) || !read_int(s, 11, 2, h) ||
      !read_int(s, 14, 2, mi) || !read_int(s, 17, 2, se))
    return std::nullopt;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) return std::nullopt;
  std::size_t pos = 19;
  std::int64_t micros = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    int digits = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      if (digits < 6) micros = micros * 10 + (s[pos] - '0');
      ++digits;
      ++pos;
    }
    if (digits == 0) return std::nullopt;
    for (int i = digits; i < 6; ++i) micros *= 10;
  }
  std::int64_t offset_seconds = 0;
  if (pos < s.size()) {
    if (s[pos] == 'Z' && pos + 1 == s.size()) {
      ++pos;
    } else if ((s[pos] == '+' || s[pos] == '-') && s.size() - pos >= 3) {
      int sign = s[pos] == '-' ? -1 : 1;
      int oh = 0, om = 0;
      if (!read_int(s, pos + 1, 2, oh)) return std::nullopt;
      std::size_t p = pos + 3;
      if (p < s.size() && s[p] == ':') ++p;
      if (p < s.size()) {
        if (!read_int(s, p, 2, om) || p + 2 != s.size()) return std::nullopt;
      }
      offset_seconds = sign * (oh * 3600 + om * 60);
      pos = s.size();
    } else {
      return std::nullopt;
    }
  }
  using namespace std::chrono;
  auto ymd = year_month_day{year{y}, month{static_cast<unsigned>(mo)}, day{static_cast<unsigned>(d)}};
  if (!ymd.ok()) return std::nullopt;
  std::int64_t days = sys_days{ymd}.time_since_epoch().count();
  std::int64_t secs = days * 86400 + h * 3600 + mi * 60 + se - offset_seconds;
  return secs * 1'000'000 + micros;
}

std::string format_iso8601_micros(std::int64_t micros) {
  using namespace std::chrono;
  std::int64_t secs = micros >= 0 ? micros / 1'000'000 : (micros - 999'999) / 1'000'000;
  std::int64_t frac = micros - secs * 1'000'000;
  std::int64_t days = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400;
  std::int64_t rem = secs - days * 86400;
  year_month_day ymd{sys_days{std::chrono::days{days}}};
  char buf[40];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02d.%06dZ", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()), static_cast<int>(rem / 3600),
                static_cast<int>(rem / 60 % 60), static_cast<int>(rem % 60), static_cast<int>(frac));
  return buf;
}

std::string describe_duration(std::int64_t seconds) {
  if (seconds < 0) seconds = -seconds;
  const std::int64_t d = seconds / 86400, h = seconds / 3600 % 24, m = seconds / 60 % 60, s = seconds % 60;
  std::string out;
  auto add = [&out](std::int64_t v, const char* unit) {
    if (out.size() >= 6) return;  // two units are enough for a sentence
    if (!out.empty()) out += ' ';
    out += std::to_string(v) + unit;
  };
  if (d) add(d, "d");
  if (h) add(h, "h");
  if (m && !d) add(m, "m");
  if ((s && !d && !h) || (!d && !h && !m)) add(s, "s");
  return out;
}

}  // namespace ods::planner
