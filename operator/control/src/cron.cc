#include "ods/control/cron.h"

#include <array>
#include <cctype>
#include <charconv>
#include <vector>

namespace ods::control {
namespace {

struct FieldSpec {
  const char* name;
  int min;
  int max;
  const char* const* names;  // names[i] is the value min + i, or nullptr
};

constexpr const char* kMonthNames[] = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                                       "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
constexpr const char* kWeekdayNames[] = {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"};
constexpr std::array<FieldSpec, 5> kFields = {{{"minute", 0, 59, nullptr},
                                               {"hour", 0, 23, nullptr},
                                               {"day-of-month", 1, 31, nullptr},
                                               {"month", 1, 12, kMonthNames},
                                               {"day-of-week", 0, 7, kWeekdayNames}}};

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == separator) {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}

std::string upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

Error field_error(const FieldSpec& field, std::string_view schedule, const std::string& why) {
  return Error{"invalid_schedule", "schedule \"" + std::string(schedule) + "\": " + field.name + " field: " + why};
}

// One value of a field: a number or (month, weekday) a name.
Result<int> parse_value(const FieldSpec& field, std::string_view schedule, std::string_view text) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error == std::errc{} && end == text.data() + text.size()) {
    if (value < field.min || value > field.max) {
      return std::unexpected(field_error(
          field, schedule,
          std::to_string(value) + " is out of range " + std::to_string(field.min) + "-" + std::to_string(field.max)));
    }
    return value;
  }
  if (field.names != nullptr) {
    const std::string name = upper(text);
    const int count = field.names == kMonthNames ? 12 : 7;
    for (int i = 0; i < count; ++i) {
      if (name == field.names[i]) return field.names == kMonthNames ? i + 1 : i;
    }
  }
  const std::string expected = field.names == nullptr       ? "a number"
                               : field.names == kMonthNames ? "a number or a month name (JAN-DEC)"
                                                            : "a number or a weekday name (SUN-SAT)";
  return std::unexpected(field_error(field, schedule, "\"" + std::string(text) + "\" is not " + expected));
}

// One list item: `*`, `a`, `a-b`, each optionally `/step`. Sets the matching bits of `bits`.
Result<void> parse_item(const FieldSpec& field, std::string_view schedule, std::string_view item,
                        std::vector<bool>& bits) {
  int step = 1;
  std::string_view range = item;
  bool has_step = false;
  if (const auto slash = item.find('/'); slash != std::string_view::npos) {
    const std::string_view step_text = item.substr(slash + 1);
    const auto [end, error] = std::from_chars(step_text.data(), step_text.data() + step_text.size(), step);
    if (error != std::errc{} || end != step_text.data() + step_text.size() || step < 1 || step > field.max) {
      return std::unexpected(field_error(
          field, schedule,
          "step \"" + std::string(step_text) + "\" must be a number from 1 to " + std::to_string(field.max)));
    }
    range = item.substr(0, slash);
    has_step = true;
  }
  int first = field.min;
  int last = field.max;
  if (range != "*") {
    const auto dash = range.find('-');
    auto low = parse_value(field, schedule, range.substr(0, dash));
    if (!low) return std::unexpected(low.error());
    first = *low;
    last = has_step ? field.max : first;  // "a/n" runs from a to the end
    if (dash != std::string_view::npos) {
      auto high = parse_value(field, schedule, range.substr(dash + 1));
      if (!high) return std::unexpected(high.error());
      last = *high;
      if (last < first) {
        return std::unexpected(field_error(field, schedule,
                                           "range " + std::string(range) + " runs backwards (" + std::to_string(first) +
                                               " > " + std::to_string(last) + ")"));
      }
    }
  }
  for (int value = first; value <= last; value += step) bits[static_cast<std::size_t>(value)] = true;
  return {};
}

Result<std::vector<bool>> parse_field(const FieldSpec& field, std::string_view schedule, std::string_view text) {
  std::vector<bool> bits(static_cast<std::size_t>(field.max) + 1, false);
  for (const std::string_view item : split(text, ',')) {
    if (item.empty())
      return std::unexpected(field_error(field, schedule, "empty list item in \"" + std::string(text) + "\""));
    if (auto parsed = parse_item(field, schedule, item, bits); !parsed) return std::unexpected(parsed.error());
  }
  return bits;
}

std::string_view expand_macro(std::string_view text) {
  if (text == "@yearly" || text == "@annually") return "0 0 1 1 *";
  if (text == "@monthly") return "0 0 1 * *";
  if (text == "@weekly") return "0 0 * * 0";
  if (text == "@daily" || text == "@midnight") return "0 0 * * *";
  if (text == "@hourly") return "0 * * * *";
  return text;
}

constexpr int kMaxDays[13] = {0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

}  // namespace

Result<CronSchedule> CronSchedule::parse(std::string_view text) {
  if (text.starts_with('@') && expand_macro(text) == text) {
    return fail("invalid_schedule", "schedule \"" + std::string(text) +
                                        "\": unknown macro (use @hourly, @daily, @weekly, @monthly or @yearly)");
  }
  std::vector<std::string_view> fields;
  for (const std::string_view part : split(expand_macro(text), ' ')) {
    if (!part.empty()) fields.push_back(part);
  }
  if (fields.size() != 5) {
    return fail("invalid_schedule", "schedule \"" + std::string(text) + "\" has " + std::to_string(fields.size()) +
                                        " fields; a cron expression has 5 (minute hour day-of-month month "
                                        "day-of-week), e.g. \"0 6 * * *\"");
  }
  CronSchedule schedule;
  schedule.text_ = std::string(text);
  std::array<std::vector<bool>, 5> bits;
  for (std::size_t i = 0; i < 5; ++i) {
    auto parsed = parse_field(kFields[i], text, fields[i]);
    if (!parsed) return std::unexpected(parsed.error());
    bits[i] = std::move(*parsed);
  }
  for (std::size_t v = 0; v < 60; ++v) schedule.minutes_[v] = bits[0][v];
  for (std::size_t v = 0; v < 24; ++v) schedule.hours_[v] = bits[1][v];
  for (std::size_t v = 1; v <= 31; ++v) schedule.days_[v] = bits[2][v];
  for (std::size_t v = 1; v <= 12; ++v) schedule.months_[v] = bits[3][v];
  for (std::size_t v = 0; v <= 7; ++v) {
    if (bits[4][v]) schedule.weekdays_[v % 7] = true;
  }
  schedule.days_restricted_ = fields[2] != "*" && !fields[2].starts_with("*/");
  schedule.weekdays_restricted_ = fields[4] != "*" && !fields[4].starts_with("*/");
  if (!schedule.weekdays_restricted_ || !schedule.days_restricted_) {
    bool possible = false;
    for (int month = 1; month <= 12 && !possible; ++month) {
      for (int day = 1; day <= kMaxDays[month] && schedule.months_[static_cast<std::size_t>(month)]; ++day) {
        if (schedule.days_[static_cast<std::size_t>(day)]) possible = true;
      }
    }
    if (!possible) {
      return fail("invalid_schedule", "schedule \"" + std::string(text) +
                                          "\": day-of-month field: no selected day exists in the selected months");
    }
  }
  return schedule;
}

bool CronSchedule::day_matches(int day_of_month, int weekday) const {
  const bool day = days_[static_cast<std::size_t>(day_of_month)];
  const bool week = weekdays_[static_cast<std::size_t>(weekday)];
  if (days_restricted_ && weekdays_restricted_) return day || week;
  return day && week;
}

std::optional<TimePoint> CronSchedule::next_after(TimePoint time) const {
  using namespace std::chrono;
  sys_time<minutes> t = floor<minutes>(time) + minutes(1);
  const sys_time<minutes> limit = t + days(366 * 10);
  while (t < limit) {
    const sys_days day = floor<days>(t);
    const year_month_day date{day};
    const auto month = static_cast<unsigned>(date.month());
    if (!months_[month]) {
      const year_month_day first_of_next = year_month_day{date.year() / date.month() / 1} + std::chrono::months(1);
      t = sys_days{first_of_next};
      continue;
    }
    if (!day_matches(static_cast<int>(static_cast<unsigned>(date.day())),
                     static_cast<int>(weekday{day}.c_encoding()))) {
      t = day + days(1);
      continue;
    }
    const hh_mm_ss clock{t - day};
    if (!hours_[static_cast<std::size_t>(clock.hours().count())]) {
      t = day + clock.hours() + hours(1);
      continue;
    }
    if (!minutes_[static_cast<std::size_t>(clock.minutes().count())]) {
      t += minutes(1);
      continue;
    }
    return time_point_cast<TimePoint::duration>(t);
  }
  return std::nullopt;
}

}  // namespace ods::control
