#pragma once
// The time source of the control loop, injected so tests can move time by hand.
#include <chrono>

namespace ods::control {

using TimePoint = std::chrono::system_clock::time_point;

class Clock {
 public:
  virtual ~Clock() = default;
  // The current time (UTC). Safe to call from several threads at once.
  virtual TimePoint now() const = 0;
};

// The real clock (std::chrono::system_clock). A process-wide instance; never destroyed.
Clock& system_clock();

}  // namespace ods::control
