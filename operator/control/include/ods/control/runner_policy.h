#pragma once
// Which runner images and service accounts a DbtProject may name (docs/kubernetes.md, "What a
// project may run"). Whoever may write a DbtProject chooses the image its runner pods run and
// the service account they run as; a platform team narrows both with the operator's
// --allowed-images and --allowed-service-accounts (chart: runnerPolicy.*). A run whose project
// names anything else fails with reason RunnerNotAllowed before any Job exists.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ods::control {

struct RunnerPolicy {
  // Shell-style patterns (fnmatch: `*` matches any text, `/` included, `?` one character) of
  // spec.image. Empty: any image. E.g. "ghcr.io/ods-dev/ods-runner:*", "registry.corp/analytics/*".
  std::vector<std::string> image_patterns{};
  // Names spec.runnerPodTemplate.serviceAccountName may take. Empty: any. A project that names
  // none runs as the namespace's `default` account (with no API token mounted) and is allowed.
  std::vector<std::string> service_accounts{};
};

// Why `project` (a DbtProject object) is not allowed to run under `policy`, naming the value and
// what is allowed; nullopt when it is. Pure.
std::optional<std::string> runner_policy_refusal(const RunnerPolicy& policy, const nlohmann::json& project);

}  // namespace ods::control
