#pragma once
// Waiting in a test without hanging it: eventually() polls a condition until it holds or a
// deadline passes, so a test whose condition never comes fails (with its own message) instead of
// blocking until ctest kills it. Choose limits generous enough for a loaded CI machine; they
// bound a failure, they are never a timing assertion. Header-only, for unit, integration and
// end-to-end tests alike (target ods_test_eventually).
#include <chrono>
#include <thread>

namespace ods::testing {

// Calls `condition` (a callable returning bool) every `poll` until it returns true: true; or
// until `limit` has passed since the call: the last answer (the condition is asked once more
// at the deadline).
template <typename Condition>
[[nodiscard]] bool eventually(std::chrono::steady_clock::duration limit, Condition&& condition,
                              std::chrono::milliseconds poll = std::chrono::milliseconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    if (condition()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return static_cast<bool>(condition());
    std::this_thread::sleep_for(poll);
  }
}

}  // namespace ods::testing
