#pragma once
// The runner Job of a DbtRun and the Secret holding the run's callback token (docs/kubernetes.md,
// "The Job a run gets"). Pure functions: the reconciler creates what they return.
//
// The Job (batch/v1): owner reference to the run; backoffLimit 0; activeDeadlineSeconds from the
// project's spec.policies.runTimeout (default 1h); one container `runner` with the project's
// image and command `ods pod`; the profile Secret mounted read-only at /var/run/ods/profile
// (profiles.yml) and the token Secret at /var/run/ods/run (token), both only into this pod (and
// a git source's spec.source.git.secretRef at /var/run/ods/git, with ODS_GIT_CREDENTIALS_DIR);
// writable emptyDirs for /tmp and /var/run/ods/work (dbt's target and logs); pod
// securityContext runAsNonRoot with a non-zero user, seccomp RuntimeDefault; container
// allowPrivilegeEscalation false, readOnlyRootFilesystem true, capabilities drop ALL; no
// service-account token; resources from spec.runnerPodTemplate or the defaults below.
// Environment (the names of ods/callback/pod_environment.h, which `ods pod` reads): ODS_CALLBACK_URL,
// ODS_RUN (namespace/name), ODS_RUN_TOKEN_FILE, DBT_PROFILES_DIR,
// ODS_PROJECT_DIR (image source; or ODS_GIT_URL/REVISION/PATH for a git source, checked out
// under the work dir), ODS_TARGET, ODS_SELECT / ODS_EXCLUDE (space-separated; the run's
// selection, else the project's), ODS_RUN_TESTS (spec.policies.runTests, default true),
// DBT_TARGET_PATH, DBT_LOG_PATH, HOME,
// ODS_DIGEST_KEY from a secretKeyRef to spec.digestKeySecretRef {name, key (default
// digest-key)} when set (the kubelet resolves it; a missing Secret or key keeps the pod in
// CreateContainerConfigError), ODS_PACKAGES_CACHE when the operator has a packages cache (below),
// then the template's env (names the operator sets, and ODS_DIGEST_KEY always, are not taken from
// it: a key is never a value in the DbtProject).
//
// The packages cache (RunJobOptions::packages_cache; docs/kubernetes.md, "A packages cache"): a
// volume `packages-cache` mounted at /var/cache/ods/packages, where `ods pod` keeps installed dbt
// packages by their lockfile's digest. A hostPath (type DirectoryOrCreate) is mounted at the
// subPath of the run's namespace, so runs of one namespace never see another's entries; a
// PersistentVolumeClaim of the given name is the run's namespace's own claim, mounted whole.
#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "ods/base/result.h"
#include "ods/control/runner_policy.h"

namespace ods::control {

using Json = nlohmann::json;

inline constexpr std::string_view kRunTokenDir = "/var/run/ods/run";
inline constexpr std::string_view kRunTokenFile = "/var/run/ods/run/token";
inline constexpr std::string_view kProfileDir = "/var/run/ods/profile";
inline constexpr std::string_view kWorkDir = "/var/run/ods/work";
inline constexpr std::string_view kGitCredentialsDir = "/var/run/ods/git";
inline constexpr std::string_view kDigestKeyDefaultKey = "digest-key";
inline constexpr std::string_view kPackagesCacheDir = "/var/cache/ods/packages";

// Where runner pods keep installed dbt packages: at most one of the two; neither: no cache.
struct PackagesCacheVolume {
  std::string host_path{};   // an absolute path on each node (a folder per namespace below it)
  std::string claim_name{};  // a PersistentVolumeClaim each project's namespace has
};

struct RunJobOptions {
  std::string callback_url;  // where the runner pod reports (ODS_CALLBACK_URL)
  std::int64_t run_as_user = 65532;
  Json default_resources = {{"requests", {{"cpu", "250m"}, {"memory", "512Mi"}}},
                            {"limits", {{"cpu", "2"}, {"memory", "2Gi"}}}};
  RunnerPolicy policy{};                 // the images and service accounts projects may name (default: any)
  PackagesCacheVolume packages_cache{};  // default: none
};

// The Job's name for run `run_name` (at most 63 characters, as Job names must be).
std::string runner_job_name(std::string_view run_name);
// The token Secret's name for run `run_name`.
std::string run_token_secret_name(std::string_view run_name);

// The Secret (type Opaque, key "token") for `run`, owned by the run.
Json run_token_secret(const Json& run, const std::string& token);
// The Job for `run` of `project`; error "invalid_project" when spec.policies.runTimeout is not a
// duration, "not_allowed" when options.policy refuses the project's image or service account.
[[nodiscard]] Result<Json> runner_job(const Json& run, const Json& project, const RunJobOptions& options);

// "90s", "45m", "1h30m" → seconds; nullopt when not such a duration (or zero).
std::optional<std::chrono::seconds> parse_run_timeout(std::string_view text);

}  // namespace ods::control
