#pragma once
// Test harness: a kubelet and Job controller stand-in for a control plane without either
// (tests/harness/kube_control_plane.h runs none). It watches the Jobs of a namespace through an
// ods::kube::Client and runs each new Job's container as a local process:
//
// - the Pod: created through the API (the Job's pod template, owner reference to the Job, label
//   job-name), its status written as the process goes: Running, then Succeeded or Failed with the
//   container's exit code;
// - the files: every volume of the pod gets a folder under <root>/<pod>/volumes/<name>; a secret
//   volume holds the Secret's data (its items' paths, or one file per key), an emptyDir is empty;
// - env secretKeyRefs: resolved from the Secret when the Job starts; while a Secret or key is
//   missing the Pod stays Pending with the container waiting in CreateContainerConfigError
//   (the kubelet's message: `secret "x" not found`, `couldn't find key k in Secret ns/x`), the
//   Job active, until it appears, the Job is deleted or activeDeadlineSeconds passes;
// - the environment: the container's env, with every value that is a mount path (or under one)
//   rewritten to that folder (ODS_RUN_TOKEN_FILE=/var/run/ods/run/token becomes
//   <root>/<pod>/volumes/run-token/token; DBT_PROFILES_DIR likewise); PATH from this process
//   unless the Job sets one;
// - the command: the container's command and args; a name in Options::executables is replaced by
//   its path (e.g. "ods" → build/bin/ods), others are looked up on PATH; stdout and stderr go to
//   <root>/<pod>/log;
// - the Job's status, as the Job controller writes it: startTime and active 1 when it starts;
//   at the end SuccessCriteriaMet + Complete (succeeded 1, completionTime) for exit code 0, or
//   FailureTarget + Failed with reason BackoffLimitExceeded (failed 1) for another exit code;
//   activeDeadlineSeconds kills the process group and fails the Job with DeadlineExceeded.
//
// A deleted Job's process is killed, its Pod gets a terminal phase and is deleted (it stays
// Terminating: no kubelet confirms the deletion), nothing more is written for the Job (as the
// garbage collector and the kubelet would do). A Job is run once (by uid), also across relists. stop() (and the
// destructor) kill what still runs and wait for it. The processes die with the test process (PR_SET_PDEATHSIG).
#include <atomic>
#include <chrono>
#include <expected>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "ods/kube/client.h"

namespace ods::testing {

using Json = nlohmann::json;

// How a pod's process ended.
struct PodResult {
  enum class Ending { exited, deadline_exceeded, not_started };
  Ending ending = Ending::exited;
  int exit_code = 0;
  std::string message;  // for not_started: why (bad command, missing Secret)
};

// Pure mappings, for unit tests.
namespace standin {
// The Pod the stand-in creates for `job` (name `pod_name`).
Json pod_for_job(const Json& job, const std::string& pod_name);
// The Pod's status: Running (result nullopt) or its end.
Json pod_status(const Json& job, const std::optional<PodResult>& result, const std::string& started,
                const std::string& now);
// The Pod's status while its container waits (reason e.g. CreateContainerConfigError).
Json pod_waiting_status(const Json& job, const std::string& reason, const std::string& message);
// The Job's status: running (result nullopt) or finished as the Job controller would write it.
Json job_status(const std::optional<PodResult>& result, const std::string& started, const std::string& now);
// The container's environment with mount paths rewritten to `volume_dirs` (volume name → folder);
// a valueFrom entry takes its value from `secret_values` (variable name → resolved value).
std::map<std::string, std::string> environment(const Json& job, const std::map<std::string, std::string>& volume_dirs,
                                               const std::map<std::string, std::string>& secret_values = {});
}  // namespace standin

class KubeletStandin {
 public:
  struct Options {
    std::string namespace_name;                      // the namespace whose Jobs it runs
    std::filesystem::path root;                      // where pods' folders go (created)
    std::map<std::string, std::string> executables;  // command name → path
  };

  // `client` must outlive the stand-in.
  KubeletStandin(ods::kube::Client& client, Options options);
  ~KubeletStandin();
  KubeletStandin(const KubeletStandin&) = delete;
  KubeletStandin& operator=(const KubeletStandin&) = delete;

  // Starts watching (list, then watch from the list's resourceVersion; relists when the watch
  // ends or breaks).
  void start();
  // Stops watching, kills running processes, waits for their threads.
  void stop();
  // Runs one Job to its end on the calling thread (what start() does for each new Job).
  // Returns the result, or an error when the API refused a write.
  std::expected<PodResult, std::string> run_job(const Json& job);

  int jobs_started() const { return jobs_started_; }
  // Processes running now.
  int processes_running() const;
  // Problems met by the watch threads (API errors), for failure messages.
  std::vector<std::string> problems() const;

 private:
  void watch_loop();
  void launch(const Json& job);
  void forget(const Json& job);
  PodResult execute(const Json& job, const std::filesystem::path& pod_dir,
                    const std::map<std::string, std::string>& environment);
  void note(const std::string& problem);
  // The values of the container's env secretKeyRefs, or the kubelet's message for the first
  // Secret or key missing.
  std::expected<std::map<std::string, std::string>, std::string> secret_environment(const Json& job,
                                                                                    const std::string& namespace_name);

  ods::kube::Client& client_;
  Options options_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> jobs_started_{0};
  mutable std::mutex mutex_;
  std::set<std::string> seen_uids_;
  std::vector<std::thread> job_threads_;
  std::map<pid_t, std::string> running_;  // pid → the Job's uid
  std::set<std::string> deleted_uids_;    // Jobs deleted while their process ran
  std::unique_ptr<ods::kube::WatchStream> watch_;
  std::thread watcher_;
  std::vector<std::string> problems_;
};

}  // namespace ods::testing
