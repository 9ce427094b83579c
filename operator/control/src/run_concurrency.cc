#include "run_concurrency.h"

#include <tuple>

#include "ods/control/objects.h"
#include "project_runs.h"

namespace ods::control {
namespace {

namespace res = kube::resources;

// Creation order: creationTimestamp (second resolution), then name.
bool created_before(const Json& a, const Json& b) {
  return std::tuple(time_at(a, "/metadata/creationTimestamp").value_or(TimePoint{}), string_at(a, "/metadata/name")) <
         std::tuple(time_at(b, "/metadata/creationTimestamp").value_or(TimePoint{}), string_at(b, "/metadata/name"));
}

bool job_ended(const Json& job) {
  const Json::json_pointer at("/status/conditions");
  if (!job.contains(at) || !job.at(at).is_array()) return false;
  for (const Json& condition : job.at(at)) {
    const std::string type = condition.value("type", "");
    if ((type == "Complete" || type == "Failed") && condition.value("status", "") == "True") return true;
  }
  return false;
}

bool pod_ended(const Json& pod) {
  const std::string phase = string_at(pod, "/status/phase");
  return phase == "Succeeded" || phase == "Failed";
}

// The first Job or Pod (by the run label) of another run than `run_name` that has not ended:
// "Job x of run y", or "" when there is none.
Result<std::string> runner_still_running(kube::Client& client, const std::string& namespace_name,
                                         const std::string& project, const std::string& run_name) {
  const kube::ListOptions options{.label_selector = std::string(kProjectLabel) + "=" + project, .field_selector = {}};
  const std::pair<const kube::Resource*, bool (*)(const Json&)> kinds[] = {{&res::kJobs, job_ended},
                                                                           {&res::kPods, pod_ended}};
  for (const auto& [resource, ended] : kinds) {
    auto listed = client.list(*resource, namespace_name, options);
    if (!listed) {
      return std::unexpected(
          api_failure("listing the runner " + resource->plural + " of DbtProject " + project, listed.error()));
    }
    for (const Json& item : (*listed)["items"]) {
      const std::string owner_run = string_at(item, "/metadata/labels/ods.dev~1run");
      if (owner_run == run_name || ended(item)) continue;
      return (resource == &res::kJobs ? "Job " : "Pod ") + string_at(item, "/metadata/name") + " of run " + owner_run;
    }
  }
  return std::string();
}

}  // namespace

Result<ConcurrencyVerdict> concurrency_verdict(kube::Client& client, const Json& run, const Json& project) {
  const std::string policy = string_at(project, "/spec/policies/concurrency", "Forbid");
  if (policy == "Allow") return ConcurrencyVerdict{};
  const kube::ObjectKey key = key_of(run);
  const std::string project_name = string_at(project, "/metadata/name");
  auto listed = client.list(res::kDbtRuns, key.namespace_name, runs_of_project_options(project_name));
  if (!listed) {
    return std::unexpected(
        api_failure("listing the DbtRuns of DbtProject " + key.namespace_name + "/" + project_name, listed.error()));
  }
  ConcurrencyVerdict verdict;
  for (const Json& other : runs_of_project((*listed)["items"], project_name).active) {
    const std::string other_name = string_at(other, "/metadata/name");
    if (other_name == key.name) continue;
    const bool older = created_before(other, run);
    if (policy == "Replace") {
      if (older) {
        verdict.to_replace.push_back(other);
      } else {
        return ConcurrencyVerdict{ConcurrencyVerdict::Action::superseded,
                                  "replaced by the newer DbtRun " + other_name + " (policies.concurrency Replace)",
                                  {}};
      }
    } else if (older && verdict.message.empty()) {
      verdict.action = ConcurrencyVerdict::Action::wait;
      verdict.message = "waiting for DbtRun " + other_name + " (" + string_at(other, "/status/phase", "not started") +
                        ") of DbtProject " + project_name +
                        " to finish (policies.concurrency Forbid: one run at a time)";
    }
  }
  if (!verdict.to_replace.empty()) {
    verdict.message = "replacing the older DbtRun " + string_at(verdict.to_replace.front(), "/metadata/name") +
                      (verdict.to_replace.size() > 1 ? " and others" : "") + " (policies.concurrency Replace)";
  }
  if (verdict.action == ConcurrencyVerdict::Action::wait || !verdict.to_replace.empty()) return verdict;
  auto running = runner_still_running(client, key.namespace_name, project_name, key.name);
  if (!running) return std::unexpected(running.error());
  if (!running->empty()) {
    verdict.action = ConcurrencyVerdict::Action::wait;
    verdict.message = "waiting for the runner " + *running + " of DbtProject " + project_name +
                      " to end (policies.concurrency " + policy + ": one runner pod at a time)";
  }
  return verdict;
}

}  // namespace ods::control
