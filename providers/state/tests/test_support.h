#pragma once
// Helpers for the state store tests: a temp directory removed afterwards (tests/harness), raw file and
// SQL access for simulating damage.
#include <filesystem>
#include <string>
#include <vector>

#include "harness/temp_dir.h"
#include "ods/base/clock.h"
#include "ods/base/iso8601.h"

namespace ods::state::testing {

// A fresh directory under the system temp dir, removed with everything in it.
using ods::testing::TempDir;

// The whole content of `path`.
std::string read_bytes(const std::string& path);
void write_bytes(const std::string& path, const std::string& bytes);
// The names of the entries in `dir`, sorted.
std::vector<std::string> list_dir(const std::filesystem::path& dir);

// Runs `sql` on the SQLite file at `path` (created if missing) with a plain connection
// (foreign keys off);
// fails the test on error.
void raw_exec(const std::string& path, const std::string& sql);
// The first column of the first row of `sql`, as text ("" when no row).
std::string raw_query(const std::string& path, const std::string& sql);

// A clock that always answers the same time.
inline constexpr char kFixedNow[] = "2026-10-04T12:00:00.000001Z";

// kFixedNow as a time.
inline TimePoint fixed_now() { return TimePoint(std::chrono::microseconds(*parse_iso8601_micros(kFixedNow))); }

// A clock that always says kFixedNow.
inline const Clock& fixed_clock() {
  static const FixedClock clock(fixed_now());
  return clock;
}

}  // namespace ods::state::testing
