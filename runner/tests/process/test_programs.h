#pragma once
// Test helpers: a private temp directory with small shell programs standing in for dbt.
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "harness/temp_dir.h"

namespace ods::process::testing {

// A fresh directory (tests/harness/temp_dir.h) with the files a test program needs.
class TempDir : public ods::testing::TempDir {
 public:
  TempDir() : ods::testing::TempDir("process") {}

  // Writes an executable `#!/bin/sh` script with `body`; returns its absolute path.
  std::filesystem::path script(const std::string& name, const std::string& body) const;
  std::filesystem::path write(const std::string& name, const std::string& content) const;
  // The file's content; "" when it does not exist.
  std::string read(const std::string& name) const;
  bool exists(const std::string& name) const;
};

// No such process any more, or only its zombie (reparented to an init that may not reap).
bool process_gone(pid_t pid);
// Polls `condition` every 10 ms until it holds or `limit` passed; returns whether it held.
// A liveness bound for asynchronous effects, not a timing assertion.
bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds limit = std::chrono::seconds(20));
// The pid written (as text) to `file` by a test program; waits for the file to appear. -1 when it never did.
pid_t read_pid(const TempDir& dir, const std::string& file);

// Lines of runner/tests/process/fixtures/<name>.
std::vector<std::string> fixture_lines(const std::string& name);
std::filesystem::path fixture_path(const std::string& name);

}  // namespace ods::process::testing
