#pragma once
// The DbtRun reconciler (docs/kubernetes.md, "Run phases" and "The Job a run gets"):
// - a run without a controller (made by hand) is adopted by its project first: a controller
//   owner reference, so that deleting the project deletes the run (as Kubernetes' controllers
//   adopt orphans);
// - a finished run (Succeeded or Failed) is not touched otherwise;
// - a new run gets its token Secret (data from the token source, created once: a restarted
//   operator finds it) and its runner Job (run_job.h; named after the run, so it is created
//   once), then phase Pending with status.jobName (Event JobCreated);
// - the project missing fails the run (ProjectNotFound), as does a project whose Job cannot be
//   built (InvalidProject);
// - a Job with condition Failed fails the run with the Job's reason (BackoffLimitExceeded,
//   DeadlineExceeded, …) and message; a Job that completed while the run never reached Succeeded
//   fails it with NoResult; a Job that vanished fails it with JobVanished;
// - a Job or Secret of the run's name controlled by another object (an earlier run of the same
//   name, not yet garbage-collected) is deleted and the run starts anew;
// - before the Job, the project's policies.concurrency decides whether the run starts, waits
//   (phase Pending, reason WaitingForRun, Event RunWaiting; checked again every kWaitRecheck) or
//   replaces older runs (run_concurrency.h); starts are serialised, so two runs never both see
//   a free project;
// - otherwise it copies the Job's startTime into the run; phases Compiling…Succeeded are written
//   by the callback side through RunStatus;
// - while the run is Pending it looks at the Job's pods every kPodRecheck: a container the
//   kubelet cannot start (CreateContainerConfigError: a Secret or key the pod's env references,
//   e.g. spec.digestKeySecretRef, is missing; CreateContainerError; an image pull error) puts its
//   reason and the kubelet's message into the run's status (phase stays Pending, as the pod
//   starts once that is fixed) with a Warning Event of that reason.
#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "ods/base/clock.h"
#include "ods/control/events.h"
#include "ods/control/reconciler.h"
#include "ods/control/run_job.h"
#include "ods/control/run_status.h"
#include "ods/kube/client.h"

namespace ods::control {

// The callback token of a run (the run object as stored); called once per run.
using RunTokenSource = std::function<std::string(const Json& run)>;

// How often a waiting run looks again whether its project is free.
inline constexpr std::chrono::milliseconds kWaitRecheck{2000};
// How often a Pending run with a Job looks at its pods.
inline constexpr std::chrono::milliseconds kPodRecheck{5000};

class DbtRunReconciler final : public Reconciler {
 public:
  // client, clock and events must outlive the reconciler.
  DbtRunReconciler(kube::Client& client, Clock& clock, EventRecorder& events, RunTokenSource token_source,
                   RunJobOptions job_options)
      : client_(client),
        events_(events),
        status_(client, clock, events),
        token_source_(std::move(token_source)),
        job_options_(std::move(job_options)) {}

  [[nodiscard]] Result<ReconcileResult> reconcile(const kube::ObjectKey& key) override;

 private:
  Result<std::optional<Json>> adopt(const Json& run);
  Result<ReconcileResult> start(const Json& run);
  Result<void> wait(const Json& run, const std::string& message);
  Result<void> replace(const Json& older, const std::string& by);
  Result<ReconcileResult> follow(const Json& run, const Json& job);
  Result<void> fail_run(const kube::ObjectKey& key, const std::string& reason, const std::string& message);

  kube::Client& client_;
  EventRecorder& events_;
  RunStatus status_;
  RunTokenSource token_source_;
  RunJobOptions job_options_;
  std::mutex start_mutex_;
};

}  // namespace ods::control
