#include "harness/background_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <fstream>
#include <thread>

namespace ods::testing {

namespace {

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("killed by signal ") + ::strsignal(WTERMSIG(status));
  return "ended (status " + std::to_string(status) + ")";
}

}  // namespace

BackgroundProcess::~BackgroundProcess() { stop(); }

std::expected<void, std::string> BackgroundProcess::start(const std::vector<std::string>& argv,
                                                          const std::filesystem::path& cwd,
                                                          const std::filesystem::path& log,
                                                          const std::vector<std::string>& env) {
  if (pid_ > 0) return std::unexpected("BackgroundProcess: " + argv.at(0) + " is already started");
  log_ = log;
  exit_description_.clear();
  exit_code_.reset();
  // Everything the child needs is prepared before fork: after it only async-signal-safe calls.
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> environment = env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view inherited(*entry);
    const std::string_view name = inherited.substr(0, inherited.find('=') + 1);
    bool replaced = false;
    for (const auto& e : env) replaced = replaced || e.starts_with(name);
    if (!replaced) environment.emplace_back(inherited);
  }
  std::vector<char*> envp;
  for (auto& e : environment) envp.push_back(e.data());
  envp.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) return std::unexpected("BackgroundProcess: fork for " + argv.at(0) + ": " + std::strerror(errno));
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) _exit(126);  // the test died before prctl took effect
    ::setpgid(0, 0);                        // Ctrl-C in a terminal reaches the test, not the server
    int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0 || ::chdir(cwd.c_str()) != 0) _exit(127);
    ::dup2(fd, STDOUT_FILENO);
    ::dup2(fd, STDERR_FILENO);
    int null_fd = ::open("/dev/null", O_RDONLY);
    if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
    ::execve(args[0], args.data(), envp.data());
    static const char message[] = "BackgroundProcess: exec failed\n";
    [[maybe_unused]] auto ignored = ::write(STDERR_FILENO, message, sizeof message - 1);
    _exit(127);
  }
  pid_ = pid;
  return {};
}

bool BackgroundProcess::exited() {
  if (pid_ <= 0) return true;
  int status = 0;
  if (::waitpid(pid_, &status, WNOHANG) != pid_) return false;
  exit_description_ = describe_status(status);
  if (WIFEXITED(status)) exit_code_ = WEXITSTATUS(status);
  pid_ = -1;
  return true;
}

void BackgroundProcess::stop(std::chrono::milliseconds grace) {
  if (exited()) return;
  ::kill(pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + grace;
  while (std::chrono::steady_clock::now() < deadline) {
    if (exited()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ::kill(pid_, SIGKILL);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  if (WIFEXITED(status)) exit_code_ = WEXITSTATUS(status);
  exit_description_ = describe_status(status) + " (after " + std::to_string(grace.count()) + " ms SIGTERM grace)";
  pid_ = -1;
}

std::string BackgroundProcess::log_tail(std::size_t lines) const { return file_tail(log_, lines); }

std::string file_tail(const std::filesystem::path& file, std::size_t lines) {
  std::ifstream in(file);
  std::deque<std::string> tail;
  for (std::string line; std::getline(in, line);) {
    tail.push_back(std::move(line));
    if (tail.size() > lines) tail.pop_front();
  }
  std::string text;
  for (const auto& line : tail) text += line + "\n";
  return text.empty() ? "(" + file.filename().string() + " is empty)\n" : text;
}

}  // namespace ods::testing
