#pragma once
// Test harness: a venv whose dbt logs every start and can be made unusable, for the suites that
// assert a run starts no dbt process (the parse's fast path: tests/integration/parse_fast_path_test.cc,
// tests/callback/pod_fast_path_test.cc). Its bin/python is a script that appends a line to
// starts() and exits 97 while broken() exists, else runs the real venv's python; its bin/dbt is the
// real console script with its first line naming that python; its lib is the real venv's, so dbt's
// version and packages are the real venv's (the parse inputs' digest sees the same dbt).
#include <filesystem>

namespace ods::testing {

class LoggingDbtVenv {
 public:
  // Makes <dir>/venv (bin/python, bin/dbt, lib) from the real venv (venv_bin()).
  explicit LoggingDbtVenv(const std::filesystem::path& dir);
  ~LoggingDbtVenv();
  LoggingDbtVenv(const LoggingDbtVenv&) = delete;
  LoggingDbtVenv& operator=(const LoggingDbtVenv&) = delete;

  std::filesystem::path bin() const { return venv_ / "bin"; }
  std::filesystem::path starts() const { return dir_ / "dbt-starts"; }
  std::filesystem::path broken() const { return dir_ / "dbt-broken"; }
  bool started() const { return std::filesystem::exists(starts()); }

 private:
  std::filesystem::path dir_, venv_;
};

}  // namespace ods::testing
