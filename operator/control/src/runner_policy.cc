// The runner allow-list (see runner_policy.h).
#include "ods/control/runner_policy.h"

#include <fnmatch.h>

#include <algorithm>

#include "ods/control/objects.h"

namespace ods::control {
namespace {

std::string listed(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

}  // namespace

std::optional<std::string> runner_policy_refusal(const RunnerPolicy& policy, const nlohmann::json& project) {
  if (!policy.image_patterns.empty()) {
    const std::string image = string_at(project, "/spec/image");
    const bool allowed = std::any_of(policy.image_patterns.begin(), policy.image_patterns.end(),
                                     [&](const std::string& p) { return fnmatch(p.c_str(), image.c_str(), 0) == 0; });
    if (!allowed) {
      return "spec.image '" + image +
             "' is not allowed by this operator (--allowed-images: " + listed(policy.image_patterns) + ")";
    }
  }
  if (!policy.service_accounts.empty()) {
    const std::string account = string_at(project, "/spec/runnerPodTemplate/serviceAccountName");
    if (!account.empty() && std::find(policy.service_accounts.begin(), policy.service_accounts.end(), account) ==
                                policy.service_accounts.end()) {
      return "spec.runnerPodTemplate.serviceAccountName '" + account +
             "' is not allowed by this operator (--allowed-service-accounts: " + listed(policy.service_accounts) + ")";
    }
  }
  return std::nullopt;
}

}  // namespace ods::control
