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

// `time` as "YYYY-MM-DDTHH:MM:SS.ffffffZ" (ods/base/iso8601.h).
std::string format_iso8601(TimePoint time);

}  // namespace ods
