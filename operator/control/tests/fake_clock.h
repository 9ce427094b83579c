#pragma once
// A clock the test moves by hand.
#include <atomic>

#include "ods/base/clock.h"
#include "ods/control/time_text.h"

namespace ods::control::testing {

class FakeClock final : public Clock {
 public:
  explicit FakeClock(TimePoint start = *parse_time("2026-03-02T10:00:00Z")) : now_(start) {}
  TimePoint now() const override { return now_.load(); }
  void set(TimePoint time) { now_ = time; }
  void advance(std::chrono::system_clock::duration by) { now_ = now_.load() + by; }

 private:
  std::atomic<TimePoint> now_;
};

}  // namespace ods::control::testing
