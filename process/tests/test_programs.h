#pragma once
// Test helpers: a private temp directory with small shell programs standing in for dbt.
#include <signal.h>
#include <sys/types.h>

#include <atomic>
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

// A signal handler of the test's own that only counts its calls (in g_custom_handler_calls).
extern std::atomic<int> g_custom_handler_calls;
extern "C" void custom_handler(int);
// SIGINT's or SIGTERM's current disposition.
struct sigaction current_action(int signal_number);

// Installs `custom_handler` for SIGINT and SIGTERM for the test's duration.
class CustomHandlers {
 public:
  CustomHandlers();
  ~CustomHandlers();
  CustomHandlers(const CustomHandlers&) = delete;
  CustomHandlers& operator=(const CustomHandlers&) = delete;

 private:
  struct sigaction saved_int_ {};
  struct sigaction saved_term_ {};
};

}  // namespace ods::process::testing
