// Fuzz target: cron schedules (operator/control CronSchedule). A refusal is
// "invalid_schedule" with a message; an accepted schedule always has a next minute, strictly
// later, on a whole minute, and the one after it later still.
#include "ods/control/cron.h"

#include <chrono>

#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto schedule = ods::control::CronSchedule::parse(ods::fuzz::as_text(data, size));
  if (!schedule) {
    ods::fuzz::require_documented_error(schedule.error(), {"invalid_schedule"}, "");
    return 0;
  }
  // 2026-02-28T23:59:30Z: a month end, the day before March.
  const ods::TimePoint start{std::chrono::seconds(1772323170)};
  const auto next = schedule->next_after(start);
  ods::fuzz::require(next.has_value(), "an accepted schedule with no next run", schedule->text());
  ods::fuzz::require(*next > start, "a next run that is not later", schedule->text());
  ods::fuzz::require(next->time_since_epoch() % std::chrono::minutes(1) == std::chrono::seconds(0),
                     "a next run not on a whole minute", schedule->text());
  const auto after = schedule->next_after(*next);
  ods::fuzz::require(after.has_value() && *after > *next, "no run after the next one", schedule->text());
  return 0;
}
