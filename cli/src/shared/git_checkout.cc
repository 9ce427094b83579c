#include "git_checkout.h"

#include <ostream>
#include <string_view>
#include <vector>

#include "child_environment.h"
#include "git_credentials.h"
#include "ods/process/child_process.h"

namespace ods::cli {
namespace {

// Runs `git <args...>` in `cwd` with `environment` added to ours (without ODS's secrets), through the process launcher
// dbt runs through (its own process group, nothing left behind); its stdout and stderr lines
// together, and the exit code (-1 when it could not be started or waited for).
std::pair<int, std::string> git(process::ProcessLauncher& launcher, const std::vector<std::string>& args,
                                const std::filesystem::path& cwd,
                                const std::vector<std::pair<std::string, std::string>>& environment) {
  std::string output;
  process::ProcessSpec spec;
  spec.argv = {"git"};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.cwd = cwd;
  spec.env = environment;
  spec.on_line = [&output](process::Stream, std::string_view line) {
    output.append(line);
    output.push_back('\n');
  };
  auto started = launcher.start(std::move(spec));
  if (!started) {
    if (started.error().code == "not_found") return {127, "git was not found on PATH"};
    return {-1, "cannot start git: " + started.error().message};
  }
  auto ended = (*started)->wait();
  if (!ended) return {-1, output + "waiting for git failed: " + ended.error().message};
  return {ended->exit_code, output};
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
  const auto launcher = make_child_launcher();
  for (const auto& step : steps) {
    auto [code, output] = git(*launcher, step, source.checkout, credentials->environment);
    if (code != 0) {
      while (!output.empty() && output.back() == '\n') output.pop_back();
      return fail("git_failed", "git " + step.front() + " of " + what + " failed (exit code " + std::to_string(code) +
                                    "): " + output);
    }
  }
  return {};
}

}  // namespace ods::cli
