#pragma once
// Test harness: a server process that runs in the background while a test talks to it.
//
// start() forks and execs argv with stdout and stderr appended to a log file. The child asks
// the kernel to SIGKILL it when the test process dies (PR_SET_PDEATHSIG), so a crashed or
// aborted test leaves no server behind; a normal end stops it in stop() or the destructor.
// Not thread-safe; the process must be started and stopped from the same thread (the death
// signal follows the thread that forked).
#include <sys/types.h>

#include <chrono>
#include <expected>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ods::testing {

class BackgroundProcess {
 public:
  BackgroundProcess() = default;
  // Stops the process (SIGTERM, then SIGKILL after a grace period) if it still runs.
  ~BackgroundProcess();
  BackgroundProcess(const BackgroundProcess&) = delete;
  BackgroundProcess& operator=(const BackgroundProcess&) = delete;

  // Starts argv[0] (a path) in `cwd` with this process's environment plus `env` ("KEY=VALUE"
  // entries, replacing a variable of the same name); the log is created or appended to. Fails
  // when the process cannot be forked; a failed exec shows as an early exit (exited()) and in
  // the log.
  [[nodiscard]] std::expected<void, std::string> start(const std::vector<std::string>& argv,
                                                       const std::filesystem::path& cwd,
                                                       const std::filesystem::path& log,
                                                       const std::vector<std::string>& env = {});
  // True once the process has ended (reaps it); `description` then says how.
  bool exited();
  std::string exit_description() const { return exit_description_; }
  // Its exit code once it exited normally (nullopt while it runs, or when a signal ended it).
  std::optional<int> exit_code() const { return exit_code_; }
  // SIGTERM, waits up to `grace`, then SIGKILL and waits. No-op when not running.
  void stop(std::chrono::milliseconds grace = std::chrono::seconds(10));
  pid_t pid() const { return pid_; }
  const std::filesystem::path& log() const { return log_; }
  // The last `lines` lines of the log (for failure messages).
  std::string log_tail(std::size_t lines = 30) const;

 private:
  pid_t pid_ = -1;
  std::filesystem::path log_;
  std::string exit_description_;
  std::optional<int> exit_code_;
};

// The last `lines` lines of a file (for failure messages), or "(<name> is empty)".
std::string file_tail(const std::filesystem::path& file, std::size_t lines);

}  // namespace ods::testing
