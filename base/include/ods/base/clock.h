#pragma once
// The one time source of ODS, injected so tests can move time by hand.
#include <chrono>
#include <string>

namespace ods {

using TimePoint = std::chrono::system_clock::time_point;

class Clock {
 public:
  virtual ~Clock() = default;
  // The current time (UTC). Safe to call from several threads at once.
  virtual TimePoint now() const = 0;
};

// The real clock (std::chrono::system_clock). A process-wide instance; never destroyed.
Clock& system_clock();

// A clock that always answers `time` (tests). Thread-safe.
class FixedClock final : public Clock {
 public:
  explicit FixedClock(TimePoint time) : time_(time) {}
  TimePoint now() const override { return time_; }

 private:
  TimePoint time_;
};

// `time` as "YYYY-MM-DDTHH:MM:SS.ffffffZ" (ods/base/iso8601.h).
std::string format_iso8601(TimePoint time);

}  // namespace ods
