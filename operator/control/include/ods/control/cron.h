#pragma once
// Cron schedules in UTC: 5 fields (minute hour day-of-month month day-of-week) of numbers, `*`,
// ranges `a-b`, steps `*/n` `a-b/n` `a/n`, lists `a,b`, month names JAN–DEC and weekday names
// SUN–SAT (0 and 7 are Sunday), or @hourly, @daily (@midnight), @weekly, @monthly,
// @yearly (@annually). As in Vixie cron, when both day-of-month and day-of-week are restricted a
// day matching either runs. Pure and thread-safe.
#include <bitset>
#include <optional>
#include <string>
#include <string_view>

#include "ods/base/clock.h"
#include "ods/base/result.h"

namespace ods::control {

class CronSchedule {
 public:
  // The schedule in `text`; error "invalid_schedule" naming the field, the value and the allowed
  // range (e.g. "minute field: 99 is out of range 0-59"), or a day that never comes
  // ("0 0 30 2 *").
  [[nodiscard]] static Result<CronSchedule> parse(std::string_view text);

  // The first matching minute strictly after `time` (seconds dropped); nullopt when none comes
  // within 10 years (cannot happen for a schedule parse() accepted).
  std::optional<TimePoint> next_after(TimePoint time) const;

  const std::string& text() const { return text_; }

 private:
  CronSchedule() = default;
  bool day_matches(int day_of_month, int weekday) const;

  std::string text_;
  std::bitset<60> minutes_;
  std::bitset<24> hours_;
  std::bitset<32> days_;     // 1–31
  std::bitset<13> months_;   // 1–12
  std::bitset<7> weekdays_;  // 0 = Sunday
  bool days_restricted_ = false;
  bool weekdays_restricted_ = false;
};

}  // namespace ods::control
