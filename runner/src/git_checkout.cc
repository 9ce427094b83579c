#include "git_checkout.h"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <ostream>
#include <vector>

#include "git_credentials.h"

namespace ods::cli {
namespace {

// Runs `git <args...>` in `cwd` with `environment` added to ours; its stdout and stderr
// together, and the exit code.
std::pair<int, std::string> git(const std::vector<std::string>& args, const std::filesystem::path& cwd,
                                const std::vector<std::pair<std::string, std::string>>& environment) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return {-1, "cannot create a pipe"};
  const pid_t pid = fork();
  if (pid < 0) return {-1, "cannot fork"};
  if (pid == 0) {
    dup2(pipe_fds[1], STDOUT_FILENO);
    dup2(pipe_fds[1], STDERR_FILENO);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    if (chdir(cwd.c_str()) != 0) _exit(126);
    for (const auto& [name, value] : environment) setenv(name.c_str(), value.c_str(), 1);
    std::vector<char*> argv{const_cast<char*>("git")};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execvp("git", argv.data());
    _exit(127);
  }
  close(pipe_fds[1]);
  std::string output;
  std::array<char, 4096> buffer{};
  for (ssize_t n; (n = read(pipe_fds[0], buffer.data(), buffer.size())) > 0;) output.append(buffer.data(), n);
  close(pipe_fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == 127) output = "git was not found on PATH";
  return {code, output};
}

}  // namespace

std::filesystem::path checkout_of(const std::filesystem::path& project_dir, const std::string& git_path) {
  if (git_path.empty()) return project_dir;
  std::filesystem::path checkout = project_dir;
  const std::filesystem::path relative(git_path);
  for (const auto& part : relative) {
    if (!part.empty()) checkout = checkout.parent_path();
  }
  return checkout;
}

Result<void> checkout_git_source(const GitSource& source, std::ostream& log) {
  const std::string what = source.url + " at " + source.revision;
  std::error_code ec;
  std::filesystem::create_directories(source.checkout, ec);
  if (ec) return fail("git_failed", "cannot create " + source.checkout.string() + " for " + what + ": " + ec.message());
  if (!std::filesystem::is_empty(source.checkout, ec)) {
    return fail("git_failed",
                source.checkout.string() + " is not empty; the checkout of " + what + " needs an empty folder");
  }
  auto credentials = git_credentials(source.credentials_dir, source.url, source.scratch);
  if (!credentials) return fail("git_failed", "checking out " + what + ": " + credentials.error().message);
  struct KeyCopyRemoval {
    std::filesystem::path dir;
    ~KeyCopyRemoval() {
      std::error_code ignored;
      if (!dir.empty()) std::filesystem::remove_all(dir, ignored);
    }
  } remove_key_copy{credentials->private_key_dir};
  log << "ods: checking out " << what << " (git" << (source.credentials_dir.empty() ? "" : ", with the source's Secret")
      << ")\n";
  const std::vector<std::vector<std::string>> steps{{"init", "--quiet"},
                                                    {"remote", "add", "origin", source.url},
                                                    {"fetch", "--quiet", "--depth", "1", "origin", source.revision},
                                                    {"checkout", "--quiet", "FETCH_HEAD"}};
  for (const auto& step : steps) {
    auto [code, output] = git(step, source.checkout, credentials->environment);
    if (code != 0) {
      while (!output.empty() && output.back() == '\n') output.pop_back();
      return fail("git_failed", "git " + step.front() + " of " + what + " failed (exit code " + std::to_string(code) +
                                    "): " + output);
    }
  }
  return {};
}

}  // namespace ods::cli
