#include "ods/control/run_reconciler.h"

#include "ods/control/objects.h"
#include "project_runs.h"
#include "run_concurrency.h"

namespace ods::control {
namespace {

namespace res = kube::resources;

// The Job's condition of `type` with status True, or nullptr.
const Json* true_condition(const Json& job, std::string_view type) {
  const Json::json_pointer at("/status/conditions");
  if (!job.contains(at) || !job.at(at).is_array()) return nullptr;
  for (const Json& item : job.at(at)) {
    if (item.value("type", "") == type && item.value("status", "") == "True") return &item;
  }
  return nullptr;
}

// False when `object` is controlled by another object than `run` (a run deleted and created
// again under the same name, whose old Job or Secret the garbage collector has not removed yet).
bool owned_by(const Json& object, const Json& run) {
  const Json::json_pointer references("/metadata/ownerReferences");
  if (!object.contains(references) || !object.at(references).is_array()) return true;
  for (const Json& reference : object.at(references)) {
    if (reference.value("controller", false)) return reference.value("uid", "") == string_at(run, "/metadata/uid");
  }
  return true;
}

Result<void> as_void(const Result<Json>& written) {
  if (!written) return std::unexpected(written.error());
  return {};
}

Result<ReconcileResult> done_now(const Result<void>& done) {
  if (!done) return std::unexpected(done.error());
  return ReconcileResult{};
}

// Waiting reasons of a container the kubelet cannot start until something is fixed (a Secret
// or key an env secretKeyRef names is missing, the image can't be pulled): Kubernetes keeps such
// a pod Pending, and its Job active, until then or the Job's activeDeadlineSeconds.
bool cannot_start(std::string_view reason) {
  return reason == "CreateContainerConfigError" || reason == "CreateContainerError" || reason == "ErrImagePull" ||
         reason == "ImagePullBackOff" || reason == "InvalidImageName";
}

// The first container of the Job's pods that cannot start: {reason, message}; nullopt if none.
std::optional<std::pair<std::string, std::string>> pod_cannot_start(const Json& pods) {
  for (const Json& pod : pods.value("items", Json::array())) {
    const Json::json_pointer statuses_at("/status/containerStatuses");
    if (!pod.contains(statuses_at) || !pod.at(statuses_at).is_array()) continue;
    for (const Json& container : pod.at(statuses_at)) {
      const Json::json_pointer waiting_at("/state/waiting");
      if (!container.contains(waiting_at)) continue;
      const std::string reason = string_at(container, "/state/waiting/reason");
      if (!cannot_start(reason)) continue;
      return std::pair{reason, "the runner pod " + string_at(pod, "/metadata/name") + " cannot start (" + reason +
                                   "): " + string_at(container, "/state/waiting/message", "(no message)") +
                                   "; it starts once that is fixed, else the run fails at its runTimeout"};
    }
  }
  return std::nullopt;
}

// The first container of the Job's pods the kernel killed for its memory limit: {reason,
// message} naming the pod, the exit code and the limit; nullopt if none. (The Job says only
// BackoffLimitExceeded; the reason is in the pod's container status.)
std::optional<std::pair<std::string, std::string>> pod_oom_killed(const Json& pods) {
  for (const Json& pod : pods.value("items", Json::array())) {
    const Json::json_pointer statuses_at("/status/containerStatuses");
    if (!pod.contains(statuses_at) || !pod.at(statuses_at).is_array()) continue;
    for (const Json& container : pod.at(statuses_at)) {
      const Json::json_pointer terminated_at("/state/terminated");
      if (!container.contains(terminated_at) || string_at(container, "/state/terminated/reason") != "OOMKilled") {
        continue;
      }
      std::string limit;
      for (const Json& spec : pod.value("spec", Json::object()).value("containers", Json::array())) {
        if (spec.value("name", "") == container.value("name", "")) limit = string_at(spec, "/resources/limits/memory");
      }
      const Json& terminated = container.at(terminated_at);
      const std::string exit_code =
          terminated.contains("exitCode") ? "exit code " + terminated.at("exitCode").dump() : "no exit code";
      return std::pair{std::string("OOMKilled"),
                       "the runner pod " + string_at(pod, "/metadata/name") +
                           " was killed by its memory limit (OOMKilled, " + exit_code +
                           (limit.empty() ? std::string() : "; limit " + limit) +
                           "): raise spec.runnerPodTemplate.resources.limits.memory; the state stays as it was"};
    }
  }
  return std::nullopt;
}

// True when `run` names a controller among its owner references (a scheduled run names its
// project; a run made by hand names none until it is adopted).
bool has_controller(const Json& run) {
  const Json::json_pointer references("/metadata/ownerReferences");
  if (!run.contains(references) || !run.at(references).is_array()) return false;
  for (const Json& reference : run.at(references)) {
    if (reference.value("controller", false)) return true;
  }
  return false;
}

}  // namespace

// A run made by hand has no controller: its project adopts it (a controller owner reference, as
// Kubernetes' controllers adopt orphans), so that deleting the project takes the run, and with
// it its Job and pod, too. The patch carries the run's resourceVersion: a run changed meanwhile
// is adopted on its next reconcile. A missing project adopts nothing (start() fails the run).
// Returns the run as patched, or nullopt when nothing was to adopt.
Result<std::optional<Json>> DbtRunReconciler::adopt(const Json& run) {
  if (has_controller(run)) return std::nullopt;
  const kube::ObjectKey key = key_of(run);
  const std::string project_name = string_at(run, "/spec/projectRef/name");
  if (project_name.empty()) return std::nullopt;
  auto project = client_.find(res::kDbtProjects, {key.namespace_name, project_name});
  if (!project) return std::unexpected(api_failure("reading DbtProject " + project_name, project.error()));
  if (!project->has_value()) return std::nullopt;
  Json references = run.contains(Json::json_pointer("/metadata/ownerReferences"))
                        ? run.at(Json::json_pointer("/metadata/ownerReferences"))
                        : Json::array();
  if (!references.is_array()) references = Json::array();
  references.push_back(controller_reference(**project));
  const Json patch = {
      {"metadata",
       {{"resourceVersion", string_at(run, "/metadata/resourceVersion")}, {"ownerReferences", references}}}};
  auto adopted = client_.merge_patch(res::kDbtRuns, key, patch);
  if (!adopted) return std::unexpected(api_failure("adopting DbtRun " + key.str(), adopted.error()));
  return std::optional<Json>(std::move(*adopted));
}

Result<ReconcileResult> DbtRunReconciler::reconcile(const kube::ObjectKey& key) {
  auto found = client_.find(res::kDbtRuns, key);
  if (!found) return std::unexpected(api_failure("reading DbtRun " + key.str(), found.error()));
  if (!found->has_value() || run_finished(**found)) return ReconcileResult{};
  auto adopted = adopt(**found);
  if (!adopted) return std::unexpected(adopted.error());
  const Json& run = adopted->has_value() ? **adopted : **found;
  const std::string recorded_job = string_at(run, "/status/jobName");
  const std::string job_name = recorded_job.empty() ? runner_job_name(key.name) : recorded_job;
  auto job = client_.find(res::kJobs, {key.namespace_name, job_name});
  if (!job) return std::unexpected(api_failure("reading Job " + key.namespace_name + "/" + job_name, job.error()));
  if (job->has_value() && !owned_by(**job, run)) {  // an earlier run's: it goes, then we start anew
    if (auto removed = client_.remove(res::kJobs, {key.namespace_name, job_name}); !removed) {
      return std::unexpected(
          api_failure("deleting the stale Job " + key.namespace_name + "/" + job_name, removed.error()));
    }
    return ReconcileResult{std::chrono::seconds(1)};
  }
  if (!job->has_value() && recorded_job.empty()) return start(run);
  if (job->has_value()) return follow(run, **job);
  return done_now(
      fail_run(key, "JobVanished",
               "the runner Job " + job_name + " was deleted before the run finished; the state stays as it was"));
}

Result<ReconcileResult> DbtRunReconciler::start(const Json& run) {
  const std::lock_guard one_start_at_a_time(start_mutex_);  // two runs never both see a free project
  const kube::ObjectKey key = key_of(run);
  const std::string project_name = string_at(run, "/spec/projectRef/name");
  auto project = client_.find(res::kDbtProjects, {key.namespace_name, project_name});
  if (!project) return std::unexpected(api_failure("reading DbtProject " + project_name, project.error()));
  if (!project->has_value()) {
    return done_now(
        fail_run(key, "ProjectNotFound", "DbtProject " + project_name + " does not exist in " + key.namespace_name));
  }
  auto job = runner_job(run, **project, job_options_);
  if (!job) {
    return done_now(
        fail_run(key, job.error().code == "not_allowed" ? "RunnerNotAllowed" : "InvalidProject", job.error().message));
  }
  auto verdict = concurrency_verdict(client_, run, **project);
  if (!verdict) return std::unexpected(verdict.error());
  if (verdict->action == ConcurrencyVerdict::Action::superseded)
    return done_now(fail_run(key, "Replaced", verdict->message));
  for (const Json& older : verdict->to_replace) {
    if (auto replaced = replace(older, key.name); !replaced) return std::unexpected(replaced.error());
  }
  if (verdict->action == ConcurrencyVerdict::Action::wait || !verdict->to_replace.empty()) {
    if (auto waiting = wait(run, verdict->message); !waiting) return std::unexpected(waiting.error());
    return ReconcileResult{kWaitRecheck};
  }

  // The run's token Secret, made afresh without reading what is there (the operator may create
  // and delete Secrets in the namespaces it serves, never read them): one left by an earlier
  // attempt holds this run's token already, one of a deleted run of the same name does not, and
  // no pod reads either before this run's Job exists.
  const kube::ObjectKey secret_key{key.namespace_name, run_token_secret_name(key.name)};
  if (auto removed = client_.remove(res::kSecrets, secret_key); !removed) {  // missing: fine
    return std::unexpected(api_failure("deleting the earlier Secret " + secret_key.str(), removed.error()));
  }
  auto secret = client_.create(res::kSecrets, key.namespace_name, run_token_secret(run, token_source_(run)));
  if (!secret && !secret.error().conflict()) {
    return std::unexpected(api_failure("creating the run token Secret " + secret_key.str(), secret.error()));
  }
  const std::string job_name = (*job)["metadata"]["name"];
  auto created = client_.create(res::kJobs, key.namespace_name, *job);
  if (!created && !created.error().conflict()) {
    return std::unexpected(
        api_failure("creating the runner Job " + key.namespace_name + "/" + job_name, created.error()));
  }
  if (created) events_.record(run, EventType::normal, "JobCreated", "created the runner Job " + job_name);
  return done_now(as_void(status_.set_phase(key, phase::kPending,
                                            {{"jobName", job_name},
                                             {"reason", "JobCreated"},
                                             {"message", "waiting for the runner pod of Job " + job_name}})));
}

Result<void> DbtRunReconciler::wait(const Json& run, const std::string& message) {
  if (string_at(run, "/status/reason") == "WaitingForRun" && string_at(run, "/status/message") == message) return {};
  if (string_at(run, "/status/reason") != "WaitingForRun") {
    events_.record(run, EventType::normal, "RunWaiting", message);
  }
  return as_void(status_.set_phase(key_of(run), phase::kPending, {{"reason", "WaitingForRun"}, {"message", message}}));
}

Result<void> DbtRunReconciler::replace(const Json& older, const std::string& by) {
  const kube::ObjectKey older_key = key_of(older);
  if (auto failed =
          fail_run(older_key, "Replaced", "replaced by the newer DbtRun " + by + " (policies.concurrency Replace)");
      !failed) {
    return failed;
  }
  const std::string recorded = string_at(older, "/status/jobName");
  const std::string job = recorded.empty() ? runner_job_name(older_key.name) : recorded;
  if (auto removed = client_.remove(res::kJobs, {older_key.namespace_name, job}); !removed) {
    return std::unexpected(api_failure("deleting the Job of the replaced run " + older_key.str(), removed.error()));
  }
  return {};
}

Result<ReconcileResult> DbtRunReconciler::follow(const Json& run, const Json& job) {
  const kube::ObjectKey key = key_of(run);
  const std::string job_name = string_at(job, "/metadata/name");
  if (const Json* failed = true_condition(job, "Failed")) {
    // A pod killed by its memory limit says so (the Job only says BackoffLimitExceeded).
    auto pods = client_.list(res::kPods, key.namespace_name, {"job-name=" + job_name, ""});
    if (!pods)
      return std::unexpected(
          api_failure("listing the pods of Job " + key.namespace_name + "/" + job_name, pods.error()));
    if (auto killed = pod_oom_killed(*pods)) return done_now(fail_run(key, killed->first, killed->second));
    return done_now(fail_run(key, failed->value("reason", "JobFailed"),
                             "the runner Job " + job_name + " failed: " + failed->value("message", "(no message)") +
                                 "; the state stays as it was"));
  }
  if (true_condition(job, "Complete") != nullptr) {
    return done_now(fail_run(key, "NoResult",
                             "the runner Job " + job_name +
                                 " completed but the run never reported its results (phase " +
                                 string_at(run, "/status/phase", "none") + "); the state stays as it was"));
  }
  Json summary = Json::object();
  if (string_at(run, "/status/jobName").empty()) summary["jobName"] = job_name;
  const std::string started = string_at(job, "/status/startTime");
  if (!started.empty() && string_at(run, "/status/startTime").empty()) summary["startTime"] = started;
  const std::string current = string_at(run, "/status/phase", std::string(phase::kPending));
  ReconcileResult result;
  if (current == phase::kPending) {
    // No pod event wakes this reconciler: while the pod has not reported, look again.
    result.requeue_after = kPodRecheck;
    auto pods = client_.list(res::kPods, key.namespace_name, {"job-name=" + job_name, ""});
    if (!pods)
      return std::unexpected(
          api_failure("listing the pods of Job " + key.namespace_name + "/" + job_name, pods.error()));
    if (auto stuck = pod_cannot_start(*pods); stuck && string_at(run, "/status/message") != stuck->second) {
      if (string_at(run, "/status/reason") != stuck->first) {
        events_.record(run, EventType::warning, stuck->first, stuck->second);
      }
      summary["reason"] = stuck->first;
      summary["message"] = stuck->second;
    }
  }
  if (summary.empty()) return result;
  if (auto written = status_.set_phase(key, current, summary); !written) return std::unexpected(written.error());
  return result;
}

Result<void> DbtRunReconciler::fail_run(const kube::ObjectKey& key, const std::string& reason,
                                        const std::string& message) {
  auto written = status_.set_phase(key, phase::kFailed, {{"reason", reason}, {"message", message}});
  if (!written && written.error().code == "run_finished") return {};  // finished meanwhile
  return as_void(written);
}

}  // namespace ods::control
