#pragma once
// Elapsed wall time for phase timings and progress lines (measured, never asserted).
#include <chrono>

namespace ods {

// Seconds from `start` to now on the steady clock (monotonic: never negative, unaffected by
// changes of the system time). Thread-safe.
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace ods
