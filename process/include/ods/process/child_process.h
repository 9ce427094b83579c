#pragma once
// Starting a child program (dbt) with its output streamed line by line, its exit status,
// and a clean way to stop it. The interface lets callers inject a fake in their unit tests;
// make_process_launcher() gives the real POSIX implementation.
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ods/base/result.h"

namespace ods::process {

enum class Stream { standard_output, standard_error };

// What to start and how to stop it.
struct ProcessSpec {
  // argv[0] is an absolute path, or a bare name looked up on the PATH of the ods process.
  // (A relative path with a '/' would be resolved against `cwd`: pass absolute paths.)
  std::vector<std::string> argv;
  // Working directory of the child; empty: the ods process's own.
  std::filesystem::path cwd;
  // Added to (or replacing entries of) the ods process's environment, as NAME, value. An
  // entry here is passed on even when its name is one the launcher withholds: the caller
  // named it for this child on purpose (git's credentials, for git alone).
  std::vector<std::pair<std::string, std::string>> env;
  // Called once per line of output, without the '\n' (a last line without one is delivered
  // at end of stream; a line longer than max_line_bytes arrives in pieces of that size).
  // Called on the thread running wait(), never concurrently. May be empty.
  std::function<void(Stream, std::string_view line)> on_line;
  std::size_t max_line_bytes = 16 * 1024 * 1024;
  // interrupt() sends SIGINT to the child's process group; if it is still running after
  // `interrupt_grace`, SIGTERM; after a further `terminate_grace`, SIGKILL.
  std::chrono::milliseconds interrupt_grace{30'000};
  std::chrono::milliseconds terminate_grace{5'000};
  // After the child itself exited, how long to keep reading output still held open by a
  // descendant that left its process group (which therefore could not be killed).
  std::chrono::milliseconds drain_timeout{2'000};
  // Give the child a stdin ods can write to (RunningProcess::write_input) instead of
  // /dev/null. It is one end of a Unix socket pair, so a write to a child that has gone
  // fails with an error instead of raising SIGPIPE in ods.
  bool input_pipe = false;
};

// How the child ended.
struct ExitStatus {
  int exit_code = 0;         // its exit code; 128 + signal number when a signal ended it
  int term_signal = 0;       // the signal that ended it, 0 when it exited by itself
  bool interrupted = false;  // interrupt() was called before it ended
  int last_signal_sent = 0;  // the strongest signal interrupt() escalated to: 0, SIGINT, SIGTERM, SIGKILL
};

// A started child. The child runs in its own process group (so a terminal's Ctrl-C reaches
// only ods, which decides what to forward), with stdin on /dev/null (unless
// ProcessSpec::input_pipe) and every signal
// disposition reset to the default. Destroying it before wait() returned kills the whole
// group (SIGKILL) and reaps the child: no zombies, nothing left running.
class RunningProcess {
 public:
  virtual ~RunningProcess() = default;

  // The child's process id, which is also its process group id.
  [[nodiscard]] virtual pid_t pid() const = 0;

  // Delivers the output lines to spec.on_line until the child has exited and its output is
  // drained, then reaps it and returns how it ended. When the child exits, whatever is still
  // running in its process group is killed (SIGKILL): a run leaves no process behind.
  // Call once, from one thread. Errors: "io" when reading the pipes or waiting fails
  // (the child is then killed and reaped); whatever on_line throws propagates, likewise.
  [[nodiscard]] virtual Result<ExitStatus> wait() = 0;

  // Asks the child to stop: SIGINT to its process group now, SIGTERM after interrupt_grace,
  // SIGKILL after terminate_grace (the escalation happens inside wait()). Calling it again
  // escalates to the next signal at once (a second Ctrl-C). No effect once the child has
  // been reaped. Thread-safe: may be called from any thread while wait() runs.
  virtual void interrupt() = 0;

  // With ProcessSpec::input_pipe: writes all of `text` to the child's stdin (blocking while
  // the child does not read). Errors: "io" when the child closed its stdin or exited;
  // "unsupported" without an input pipe. Thread-safe against wait() and interrupt(); one
  // writer at a time.
  [[nodiscard]] virtual Result<void> write_input(std::string_view text) {
    (void)text;
    return fail("unsupported", "this process has no input pipe.");
  }
  // Closes the child's stdin (it reads end of file). No effect without an input pipe.
  virtual void close_input() {}
};

class ProcessLauncher {
 public:
  virtual ~ProcessLauncher() = default;

  // Starts spec.argv. The returned process owns the child; spec.on_line is kept in it.
  // Errors: "invalid_argument" for an empty argv; "not_found" when argv[0] does not exist
  // (or cwd does not); "permission_denied" when it is not executable; "spawn_failed"
  // otherwise. Thread-safe.
  [[nodiscard]] virtual Result<std::unique_ptr<RunningProcess>> start(ProcessSpec spec) = 0;
};

// The POSIX implementation (posix_spawn, poll on the pipes). Every child it starts inherits the
// ods process's environment (as it is at each start) without the variables named in
// `withheld_variables` (exact names; the caller's secrets, e.g. the CLI's
// cli/src/shared/child_environment.h), plus ProcessSpec::env. Required, so no caller can start
// a child without deciding what it must not see; `{}` withholds nothing (tests).
std::unique_ptr<ProcessLauncher> make_process_launcher(std::vector<std::string> withheld_variables);

}  // namespace ods::process
