#include "ods/process/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <mutex>
#include <optional>
#include <system_error>

#include "ods/process/line_buffer.h"

extern char** environ;

namespace ods::process {
namespace {

using Clock = std::chrono::steady_clock;

// The longest the output loop sleeps. With a pidfd (Linux 5.3+) the child's exit wakes it at once.
constexpr std::chrono::milliseconds kTick{50};
constexpr std::size_t kReadChunk = 64 * 1024;

std::string errno_text(int err) { return std::error_code(err, std::generic_category()).message(); }

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;

  [[nodiscard]] int get() const { return fd_; }
  [[nodiscard]] bool open() const { return fd_ >= 0; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

int wait_retrying(pid_t pid) {
  int raw = 0;
  while (::waitpid(pid, &raw, 0) < 0 && errno == EINTR) {
  }
  return raw;
}

// One output pipe of the child and the line splitting of what arrives on it.
struct OutputPipe {
  Fd fd;
  Stream stream;
  LineBuffer lines;
};

class PosixProcess final : public RunningProcess {
 public:
  PosixProcess(pid_t pid, ProcessSpec spec, Fd out, Fd err, Fd pidfd, Fd input)
      : pid_(pid),
        spec_(std::move(spec)),
        pipes_{OutputPipe{std::move(out), Stream::standard_output,
                          LineBuffer(std::max<std::size_t>(spec_.max_line_bytes, 1))},
               OutputPipe{std::move(err), Stream::standard_error,
                          LineBuffer(std::max<std::size_t>(spec_.max_line_bytes, 1))}},
        pidfd_(std::move(pidfd)),
        input_(std::move(input)) {}

  ~PosixProcess() override { kill_and_reap(); }

  pid_t pid() const override { return pid_; }

  Result<ExitStatus> wait() override {
    std::optional<int> raw_status;
    Clock::time_point drain_deadline{};
    for (;;) {
      const Clock::time_point now = Clock::now();
      escalate_if_due(now);
      if (!raw_status) {
        auto exited = leader_exited();
        if (!exited) {
          kill_and_reap();
          return std::unexpected(exited.error());
        }
        if (*exited) {
          raw_status = reap_killing_leftovers();
          drain_deadline = now + spec_.drain_timeout;
        }
      }
      const bool pipes_open = pipes_[0].fd.open() || pipes_[1].fd.open();
      if (raw_status && !pipes_open) break;
      if (raw_status && now >= drain_deadline) {
        // A descendant outside the process group still holds the pipes: stop reading.
        for (auto& pipe : pipes_) close_pipe(pipe);
        break;
      }
      auto polled = poll_once(now, raw_status ? std::optional(drain_deadline) : std::nullopt);
      if (!polled) {
        kill_and_reap();
        return std::unexpected(polled.error());
      }
    }
    return exit_status(*raw_status);
  }

  void interrupt() override {
    std::lock_guard lock(mu_);
    if (reaped_) return;
    interrupted_ = true;
    send_next_signal_locked(Clock::now());
  }

  Result<void> write_input(std::string_view text) override {
    std::lock_guard lock(input_mu_);
    if (!input_.open()) return fail("unsupported", "process " + std::to_string(pid_) + " has no input pipe.");
    while (!text.empty()) {
      const ssize_t n = ::send(input_.get(), text.data(), text.size(), MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EINTR) continue;
        return fail("io", "writing to process " + std::to_string(pid_) + " failed: " + errno_text(errno) + ".");
      }
      text.remove_prefix(static_cast<std::size_t>(n));
    }
    return {};
  }

  void close_input() override {
    std::lock_guard lock(input_mu_);
    input_.reset();
  }

 private:
  void send_next_signal_locked(Clock::time_point now) {
    if (last_signal_ == SIGKILL) return;
    const int next = last_signal_ == 0 ? SIGINT : last_signal_ == SIGINT ? SIGTERM : SIGKILL;
    ::kill(-pid_, next);
    last_signal_ = next;
    next_escalation_ = now + (next == SIGINT ? spec_.interrupt_grace : spec_.terminate_grace);
  }

  void escalate_if_due(Clock::time_point now) {
    std::lock_guard lock(mu_);
    if (!reaped_ && interrupted_ && last_signal_ != SIGKILL && now >= next_escalation_) send_next_signal_locked(now);
  }

  // Whether the child has exited, without reaping it (its zombie keeps the process group id
  // from being reused until the leftovers are killed).
  Result<bool> leader_exited() {
    siginfo_t info{};
    for (;;) {
      if (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0) break;
      if (errno == EINTR) continue;
      return fail("io", "waiting for process " + std::to_string(pid_) + " failed: " + errno_text(errno) + ".");
    }
    return info.si_pid == pid_;
  }

  int reap_killing_leftovers() {
    std::lock_guard lock(mu_);
    ::kill(-pid_, SIGKILL);
    const int raw = wait_retrying(pid_);
    reaped_ = true;
    return raw;
  }

  void kill_and_reap() {
    std::lock_guard lock(mu_);
    if (reaped_) return;
    ::kill(-pid_, SIGKILL);
    wait_retrying(pid_);
    reaped_ = true;
  }

  // Waits for output, the child's exit (pidfd) or the next deadline, and reads what arrived.
  Result<void> poll_once(Clock::time_point now, std::optional<Clock::time_point> drain_deadline) {
    std::array<pollfd, 3> fds{};
    std::array<OutputPipe*, 3> owners{};
    nfds_t count = 0;
    for (auto& pipe : pipes_) {
      if (!pipe.fd.open()) continue;
      fds[count] = pollfd{pipe.fd.get(), POLLIN, 0};
      owners[count++] = &pipe;
    }
    if (pidfd_.open() && !drain_deadline) fds[count++] = pollfd{pidfd_.get(), POLLIN, 0};

    // Wake at least every kTick: to notice the child's exit without a pidfd, and to act on an
    // escalation deadline that interrupt() set meanwhile from another thread.
    Clock::time_point wake = now + kTick;
    if (drain_deadline) wake = std::min(wake, *drain_deadline);
    {
      std::lock_guard lock(mu_);
      if (!reaped_ && interrupted_ && last_signal_ != SIGKILL) wake = std::min(wake, next_escalation_);
    }
    const auto wait_ms = std::chrono::ceil<std::chrono::milliseconds>(wake - now).count();
    const int timeout_ms = static_cast<int>(std::clamp<long long>(wait_ms, 0, kTick.count()));

    if (::poll(fds.data(), count, timeout_ms) < 0) {
      if (errno == EINTR) return {};
      return fail("io",
                  "poll on the output of process " + std::to_string(pid_) + " failed: " + errno_text(errno) + ".");
    }
    for (nfds_t i = 0; i < count; ++i) {
      if (owners[i] == nullptr || fds[i].revents == 0) continue;
      if (auto read = read_available(*owners[i]); !read) return read;
    }
    return {};
  }

  Result<void> read_available(OutputPipe& pipe) {
    const ssize_t n = ::read(pipe.fd.get(), buffer_.data(), buffer_.size());
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) return {};
      return fail("io",
                  "reading the output of process " + std::to_string(pid_) + " failed: " + errno_text(errno) + ".");
    }
    if (n == 0) {
      close_pipe(pipe);
      return {};
    }
    pipe.lines.feed(std::string_view(buffer_.data(), static_cast<std::size_t>(n)),
                    [&](std::string_view line) { deliver(pipe.stream, line); });
    return {};
  }

  void close_pipe(OutputPipe& pipe) {
    if (!pipe.fd.open()) return;
    pipe.fd.reset();
    pipe.lines.finish([&](std::string_view line) { deliver(pipe.stream, line); });
  }

  void deliver(Stream stream, std::string_view line) {
    if (spec_.on_line) spec_.on_line(stream, line);
  }

  ExitStatus exit_status(int raw) {
    ExitStatus status;
    if (WIFEXITED(raw)) {
      status.exit_code = WEXITSTATUS(raw);
    } else if (WIFSIGNALED(raw)) {
      status.term_signal = WTERMSIG(raw);
      status.exit_code = 128 + status.term_signal;
    }
    std::lock_guard lock(mu_);
    status.interrupted = interrupted_;
    status.last_signal_sent = last_signal_;
    return status;
  }

  const pid_t pid_;
  ProcessSpec spec_;
  std::array<OutputPipe, 2> pipes_;
  Fd pidfd_;
  std::array<char, kReadChunk> buffer_{};
  std::mutex input_mu_;
  Fd input_;  // guarded by input_mu_; our end of the child's stdin, when ProcessSpec::input_pipe

  std::mutex mu_;
  bool reaped_ = false;                  // guarded by mu_
  bool interrupted_ = false;             // guarded by mu_
  int last_signal_ = 0;                  // guarded by mu_
  Clock::time_point next_escalation_{};  // guarded by mu_
};

// posix_spawn's attribute and file-action objects, destroyed on every path.
struct SpawnSetup {
  posix_spawnattr_t attr{};
  posix_spawn_file_actions_t actions{};
  SpawnSetup() {
    ::posix_spawnattr_init(&attr);
    ::posix_spawn_file_actions_init(&actions);
  }
  ~SpawnSetup() {
    ::posix_spawn_file_actions_destroy(&actions);
    ::posix_spawnattr_destroy(&attr);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
};

// The child's environment: ours without the withheld variables and those `extra` replaces,
// then `extra`.
std::vector<std::string> merged_environment(const std::vector<std::pair<std::string, std::string>>& extra,
                                            const std::vector<std::string>& withheld) {
  std::vector<std::string> merged;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const std::string_view name = text.substr(0, text.find('='));
    const bool replaced = std::any_of(extra.begin(), extra.end(), [&](const auto& kv) { return kv.first == name; });
    const bool secret = std::find(withheld.begin(), withheld.end(), name) != withheld.end();
    if (!replaced && !secret) merged.emplace_back(text);
  }
  for (const auto& [name, value] : extra) merged.push_back(name + "=" + value);
  return merged;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  pointers.reserve(strings.size() + 1);
  for (auto& s : strings) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
}

Fd open_pidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  const long fd = ::syscall(SYS_pidfd_open, pid, 0);
  if (fd >= 0) {
    ::fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
    return Fd(static_cast<int>(fd));
  }
#else
  (void)pid;
#endif
  return Fd();
}

Error spawn_error(int err, const ProcessSpec& spec) {
  const std::string& program = spec.argv.front();
  if (err == ENOENT || err == ENOTDIR) return Error{"not_found", "cannot start '" + program + "': no such file."};
  if (err == EACCES || err == EPERM)
    return Error{"permission_denied",
                 "cannot start '" + program + "': it is not executable (" + errno_text(err) + ")."};
  return Error{"spawn_failed", "cannot start '" + program + "': " + errno_text(err) + "."};
}

class PosixLauncher final : public ProcessLauncher {
 public:
  explicit PosixLauncher(std::vector<std::string> withheld) : withheld_(std::move(withheld)) {}

  Result<std::unique_ptr<RunningProcess>> start(ProcessSpec spec) override {
    if (spec.argv.empty()) return fail("invalid_argument", "no program to start: the argument list is empty.");
    if (!spec.cwd.empty()) {
      std::error_code ec;
      if (!std::filesystem::is_directory(spec.cwd, ec))
        return fail("not_found",
                    "cannot start '" + spec.argv.front() + "' in '" + spec.cwd.string() + "': no such directory.");
    }
    std::array<int, 2> out_ends{};
    std::array<int, 2> err_ends{};
    if (::pipe2(out_ends.data(), O_CLOEXEC) != 0)
      return fail("spawn_failed", "cannot create a pipe: " + errno_text(errno) + ".");
    Fd out_read(out_ends[0]);
    Fd out_write(out_ends[1]);
    if (::pipe2(err_ends.data(), O_CLOEXEC) != 0)
      return fail("spawn_failed", "cannot create a pipe: " + errno_text(errno) + ".");
    Fd err_read(err_ends[0]);
    Fd err_write(err_ends[1]);

    SpawnSetup setup;
    // Own process group; default dispositions for every signal (a SIGINT ignored by ods's
    // parent shell must not stay ignored in dbt); nothing blocked.
    ::posix_spawnattr_setflags(&setup.attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    ::posix_spawnattr_setpgroup(&setup.attr, 0);
    sigset_t defaults;
    ::sigfillset(&defaults);
    ::sigdelset(&defaults, SIGKILL);
    ::sigdelset(&defaults, SIGSTOP);
    ::posix_spawnattr_setsigdefault(&setup.attr, &defaults);
    sigset_t none;
    ::sigemptyset(&none);
    ::posix_spawnattr_setsigmask(&setup.attr, &none);

    Fd input_ours;
    Fd input_theirs;
    if (spec.input_pipe) {
      std::array<int, 2> ends{};
      if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends.data()) != 0)
        return fail("spawn_failed", "cannot create a socket pair: " + errno_text(errno) + ".");
      input_ours = Fd(ends[0]);
      input_theirs = Fd(ends[1]);
      ::shutdown(input_ours.get(), SHUT_RD);
      ::posix_spawn_file_actions_adddup2(&setup.actions, input_theirs.get(), STDIN_FILENO);
    } else {
      ::posix_spawn_file_actions_addopen(&setup.actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    }
    ::posix_spawn_file_actions_adddup2(&setup.actions, out_write.get(), STDOUT_FILENO);
    ::posix_spawn_file_actions_adddup2(&setup.actions, err_write.get(), STDERR_FILENO);
    if (!spec.cwd.empty()) ::posix_spawn_file_actions_addchdir_np(&setup.actions, spec.cwd.c_str());
    ::posix_spawn_file_actions_addclosefrom_np(&setup.actions, STDERR_FILENO + 1);

    std::vector<std::string> args = spec.argv;
    std::vector<std::string> env = merged_environment(spec.env, withheld_);
    std::vector<char*> argv = c_strings(args);
    std::vector<char*> envp = c_strings(env);
    pid_t pid = -1;
    const bool has_slash = spec.argv.front().find('/') != std::string::npos;
    const int rc = has_slash ? ::posix_spawn(&pid, argv[0], &setup.actions, &setup.attr, argv.data(), envp.data())
                             : ::posix_spawnp(&pid, argv[0], &setup.actions, &setup.attr, argv.data(), envp.data());
    if (rc != 0) return std::unexpected(spawn_error(rc, spec));

    out_write.reset();
    err_write.reset();
    input_theirs.reset();
    ::fcntl(out_read.get(), F_SETFL, O_NONBLOCK);
    ::fcntl(err_read.get(), F_SETFL, O_NONBLOCK);
    Fd pidfd = open_pidfd(pid);
    return std::make_unique<PosixProcess>(pid, std::move(spec), std::move(out_read), std::move(err_read),
                                          std::move(pidfd), std::move(input_ours));
  }

 private:
  const std::vector<std::string> withheld_;
};

}  // namespace

std::unique_ptr<ProcessLauncher> make_process_launcher(std::vector<std::string> withheld_variables) {
  return std::make_unique<PosixLauncher>(std::move(withheld_variables));
}

}  // namespace ods::process
