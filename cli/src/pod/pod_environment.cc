// `ods pod`'s reading of its runner Job's environment (see pod_environment.h).
#include "pod_environment.h"

#include <string>

#include "flag_names.h"
#include "ods/callback/pod_environment.h"

namespace ods::cli {

namespace pod_env = callback::pod_env;

void default_pod_flags(ParsedArgs& args, const Environment& env) {
  for (const auto& variable : pod_env::kRunnerPodVariables) {
    if (variable.reader != pod_env::Reader::pod_flag) continue;
    const std::string flag(variable.pod_flag);
    if (const std::string value = env.getenv(std::string(variable.name)); !args.has(flag) && !value.empty())
      args.flags[flag] = value;
  }
}

std::optional<GitSource> pod_git_source(const Environment& env, const std::filesystem::path& project_dir) {
  const std::string url = env.getenv(std::string(pod_env::kGitUrl));
  if (url.empty()) return std::nullopt;
  const std::string revision = env.getenv(std::string(pod_env::kGitRevision));
  return GitSource{url, revision.empty() ? "main" : revision,
                   checkout_of(project_dir, env.getenv(std::string(pod_env::kGitPath))),
                   env.getenv(std::string(pod_env::kGitCredentialsDir))};
}

Result<bool> pod_runs_tests(const ParsedArgs& args, const Environment& env) {
  const std::string value =
      args.has(kFlagRunTests) ? args.get(kFlagRunTests) : env.getenv(std::string(pod_env::kRunTests));
  if (value.empty() || value == "true") return true;
  if (value == "false") return false;
  return fail("usage", std::string(kFlagRunTests) + " (or $" + std::string(pod_env::kRunTests) +
                           ") must be true or false, not '" + value + "'");
}

}  // namespace ods::cli
