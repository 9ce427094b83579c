#pragma once
// The environment of a runner pod: every variable the operator's runner Job sets
// (operator/control run_job.cc) and `ods pod` reads (cli/src/pod), named once so the two sides
// can't drift apart (docs/kubernetes.md, "The Job a run gets"). Header-only; both sides include
// it, and both sides' unit tests check it: control_tests that every name a Job sets is listed
// here, cli_tests that `ods pod` reads every listed name (through its flag, or directly).
//
// Contract: kRunnerPodVariables holds each name once. An entry with a `pod_flag` is the default
// of that `ods pod` flag (a flag on the command line wins); one without is read where `reader`
// says. The template's own env (spec.runnerPodTemplate.env) is the user's and is not listed.
#include <array>
#include <string_view>

namespace ods::callback::pod_env {

inline constexpr std::string_view kCallbackUrl = "ODS_CALLBACK_URL";
inline constexpr std::string_view kRun = "ODS_RUN";
inline constexpr std::string_view kRunTokenFile = "ODS_RUN_TOKEN_FILE";
inline constexpr std::string_view kProfilesDir = "DBT_PROFILES_DIR";
inline constexpr std::string_view kProjectDir = "ODS_PROJECT_DIR";
inline constexpr std::string_view kGitUrl = "ODS_GIT_URL";
inline constexpr std::string_view kGitRevision = "ODS_GIT_REVISION";
inline constexpr std::string_view kGitPath = "ODS_GIT_PATH";
inline constexpr std::string_view kGitCredentialsDir = "ODS_GIT_CREDENTIALS_DIR";
inline constexpr std::string_view kTarget = "ODS_TARGET";
inline constexpr std::string_view kSelect = "ODS_SELECT";
inline constexpr std::string_view kExclude = "ODS_EXCLUDE";
inline constexpr std::string_view kRunTests = "ODS_RUN_TESTS";  // "true" or "false" (spec.policies.runTests)
inline constexpr std::string_view kTargetPath = "DBT_TARGET_PATH";
inline constexpr std::string_view kLogPath = "DBT_LOG_PATH";
inline constexpr std::string_view kHome = "HOME";
inline constexpr std::string_view kDigestKey = "ODS_DIGEST_KEY";  // from a secretKeyRef, never a value
inline constexpr std::string_view kPackagesCache = "ODS_PACKAGES_CACHE";

// Who reads a variable in the pod besides a flag's default.
enum class Reader {
  pod_flag,      // `ods pod` (the default of `pod_flag`)
  git_checkout,  // `ods pod`'s checkout of a git source, before the run (cli git_checkout.h)
  digest_key,    // `ods pod`'s keyed digest of env-reading hooks (cli digest_key.h)
  dbt,           // only dbt, which ods starts with it (DBT_LOG_PATH; HOME, which dbt and git need)
};

struct PodVariable {
  std::string_view name;
  Reader reader;
  std::string_view pod_flag;  // the `ods pod` flag it defaults; empty unless reader is pod_flag
};

inline constexpr std::array kRunnerPodVariables{
    PodVariable{kCallbackUrl, Reader::pod_flag, "--callback"},
    PodVariable{kRun, Reader::pod_flag, "--run"},
    PodVariable{kRunTokenFile, Reader::pod_flag, "--token-file"},
    PodVariable{kProfilesDir, Reader::pod_flag, "--profiles-dir"},
    PodVariable{kProjectDir, Reader::pod_flag, "--project-dir"},
    PodVariable{kGitUrl, Reader::git_checkout, ""},
    PodVariable{kGitRevision, Reader::git_checkout, ""},
    PodVariable{kGitPath, Reader::git_checkout, ""},
    PodVariable{kGitCredentialsDir, Reader::git_checkout, ""},
    PodVariable{kTarget, Reader::pod_flag, "--target"},
    PodVariable{kSelect, Reader::pod_flag, "--select"},
    PodVariable{kExclude, Reader::pod_flag, "--exclude"},
    PodVariable{kRunTests, Reader::pod_flag, "--run-tests"},
    PodVariable{kTargetPath, Reader::pod_flag, "--target-path"},
    PodVariable{kLogPath, Reader::dbt, ""},
    PodVariable{kHome, Reader::dbt, ""},
    PodVariable{kDigestKey, Reader::digest_key, ""},
    PodVariable{kPackagesCache, Reader::pod_flag, "--packages-cache"},
};

}  // namespace ods::callback::pod_env
