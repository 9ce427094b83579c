#pragma once
// `ods pod`'s reading of the environment its runner Job sets (ods/callback/pod_environment.h
// names every variable; docs/kubernetes.md, "The Job a run gets"). A flag on the command line wins.
#include <filesystem>
#include <optional>

#include "cli_args.h"
#include "context.h"
#include "git_checkout.h"

namespace ods::cli {

// Sets each `ods pod` flag that `args` lacks from its variable (pod_env::kRunnerPodVariables
// with a pod_flag), when that variable is set and not empty.
void default_pod_flags(ParsedArgs& args, const Environment& env);

// The git source the Job names ($ODS_GIT_URL, $ODS_GIT_REVISION (default main), $ODS_GIT_PATH,
// $ODS_GIT_CREDENTIALS_DIR), checked out so that `project_dir` is <checkout>/<path>; nullopt
// when $ODS_GIT_URL is unset (an image source).
std::optional<GitSource> pod_git_source(const Environment& env, const std::filesystem::path& project_dir);

// Whether the run's checks run (spec.policies.runTests): --run-tests, else $ODS_RUN_TESTS;
// "true" or unset: yes, "false": no. Errors ("usage") for any other value, naming it.
[[nodiscard]] Result<bool> pod_runs_tests(const ParsedArgs& args, const Environment& env);

}  // namespace ods::cli
