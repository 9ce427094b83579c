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
  // next_after looks 10 years ahead: an accepted schedule may have no run in that window
  // ("29 23 1 3 */7": 1 March on a Sunday, which after 2026 is 2037 — robfig/cron, which
  // Kubernetes uses, ANDs a '*'-started weekday field the same way), so none is no defect.
  const auto next = schedule->next_after(start);
  if (!next) return 0;
  ods::fuzz::require(*next > start, "a next run that is not later", schedule->text());
  ods::fuzz::require(next->time_since_epoch() % std::chrono::minutes(1) == std::chrono::seconds(0),
                     "a next run not on a whole minute", schedule->text());
  const auto after = schedule->next_after(*next);
  ods::fuzz::require(!after || *after > *next, "a run after the next one that is not later", schedule->text());
  return 0;
}
