// The pure half of the kubelet stand-in: what it writes for a Job and a process's end.
#include <algorithm>

#include "harness/kubelet_standin.h"

namespace ods::testing::standin {
namespace {

const Json& container_of(const Json& job) { return job.at("spec").at("template").at("spec").at("containers").at(0); }

std::string exit_reason(const PodResult& result) {
  if (result.ending == PodResult::Ending::deadline_exceeded) return "DeadlineExceeded";
  if (result.ending == PodResult::Ending::not_started) return "ContainerCannotRun";
  return result.exit_code == 0 ? "Completed" : "Error";
}

Json job_condition(const char* type, const std::string& reason, const std::string& message, const std::string& now) {
  return {{"type", type},       {"status", "True"},     {"reason", reason},
          {"message", message}, {"lastProbeTime", now}, {"lastTransitionTime", now}};
}

}  // namespace

Json pod_for_job(const Json& job, const std::string& pod_name) {
  const Json& metadata = job.at("metadata");
  Json labels = job["spec"]["template"].value("metadata", Json::object()).value("labels", Json::object());
  labels["job-name"] = metadata.at("name");
  labels["batch.kubernetes.io/job-name"] = metadata.at("name");
  Json spec = job.at("spec").at("template").at("spec");
  spec["nodeName"] = "kubelet-standin";
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", pod_name},
            {"namespace", metadata.at("namespace")},
            {"labels", labels},
            {"ownerReferences",
             {{{"apiVersion", "batch/v1"},
               {"kind", "Job"},
               {"name", metadata.at("name")},
               {"uid", metadata.value("uid", "")},
               {"controller", true},
               {"blockOwnerDeletion", true}}}}}},
          {"spec", spec}};
}

Json pod_status(const Json& job, const std::optional<PodResult>& result, const std::string& started,
                const std::string& now) {
  const Json& container = container_of(job);
  Json state;
  if (!result) {
    state = {{"running", {{"startedAt", started}}}};
  } else {
    state = {{"terminated",
              {{"exitCode", result->exit_code},
               {"reason", exit_reason(*result)},
               {"message", result->message},
               {"startedAt", started},
               {"finishedAt", now}}}};
  }
  const std::string phase = !result                                                                 ? "Running"
                            : result->ending == PodResult::Ending::exited && result->exit_code == 0 ? "Succeeded"
                                                                                                    : "Failed";
  Json status = {{"phase", phase},
                 {"startTime", started},
                 {"containerStatuses",
                  {{{"name", container.at("name")},
                    {"image", container.value("image", "")},
                    {"imageID", ""},
                    {"ready", !result.has_value()},
                    {"started", !result.has_value()},
                    {"restartCount", 0},
                    {"state", state}}}}};
  if (result && result->ending == PodResult::Ending::deadline_exceeded) {
    status["reason"] = "DeadlineExceeded";
    status["message"] = "Pod was active on the node longer than the specified deadline";
  }
  return status;
}

Json pod_waiting_status(const Json& job, const std::string& reason, const std::string& message) {
  const Json& container = container_of(job);
  return {{"phase", "Pending"},
          {"containerStatuses",
           {{{"name", container.at("name")},
             {"image", container.value("image", "")},
             {"imageID", ""},
             {"ready", false},
             {"started", false},
             {"restartCount", 0},
             {"state", {{"waiting", {{"reason", reason}, {"message", message}}}}}}}}};
}

Json job_status(const std::optional<PodResult>& result, const std::string& started, const std::string& now) {
  if (!result) return {{"startTime", started}, {"active", 1}, {"ready", 1}};
  if (result->ending == PodResult::Ending::exited && result->exit_code == 0) {
    const std::string message = "Reached expected number of succeeded pods";
    return {{"startTime", started},
            {"active", 0},
            {"ready", 0},
            {"succeeded", 1},
            {"completionTime", now},
            {"conditions",
             {job_condition("SuccessCriteriaMet", "CompletionsReached", message, now),
              job_condition("Complete", "CompletionsReached", message, now)}}};
  }
  std::string reason = "BackoffLimitExceeded";
  std::string message = "Job has reached the specified backoff limit";
  if (result->ending == PodResult::Ending::deadline_exceeded) {
    reason = "DeadlineExceeded";
    message = "Job was active longer than specified deadline";
  } else if (result->ending == PodResult::Ending::exited) {
    message += " (the container exited with code " + std::to_string(result->exit_code) + ")";
  } else {
    message += " (" + result->message + ")";
  }
  return {{"startTime", started},
          {"active", 0},
          {"ready", 0},
          {"failed", 1},
          {"conditions",
           {job_condition("FailureTarget", reason, message, now), job_condition("Failed", reason, message, now)}}};
}

std::map<std::string, std::string> environment(const Json& job, const std::map<std::string, std::string>& volume_dirs,
                                               const std::map<std::string, std::string>& secret_values) {
  const Json& container = container_of(job);
  std::vector<std::pair<std::string, std::string>> mounts;  // mount path → folder, longest first
  for (const Json& mount : container.value("volumeMounts", Json::array())) {
    const auto dir = volume_dirs.find(mount.value("name", ""));
    if (dir != volume_dirs.end()) mounts.emplace_back(mount.value("mountPath", ""), dir->second);
  }
  std::sort(mounts.begin(), mounts.end(), [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  std::map<std::string, std::string> env;
  for (const Json& item : container.value("env", Json::array())) {
    if (item.contains("valueFrom")) {
      const auto resolved = secret_values.find(item.value("name", ""));
      if (resolved != secret_values.end()) env[resolved->first] = resolved->second;
      continue;
    }
    std::string value = item.value("value", "");
    for (const auto& [path, dir] : mounts) {
      if (value == path || value.starts_with(path + "/")) {
        value = dir + value.substr(path.size());
        break;
      }
    }
    env[item.value("name", "")] = value;
  }
  return env;
}

}  // namespace ods::testing::standin
