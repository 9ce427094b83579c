#pragma once
// The DbtRun reconciler (docs/kubernetes.md, "Run phases" and "The Job a run gets"):
// - a finished run (Succeeded or Failed) is not touched;
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
// - otherwise it copies the Job's startTime into the run; phases Compiling…Succeeded are written
//   by the callback side through RunStatus.
#include <functional>
#include <string>

#include "ods/control/clock.h"
#include "ods/control/events.h"
#include "ods/control/reconciler.h"
#include "ods/control/run_job.h"
#include "ods/control/run_status.h"
#include "ods/kube/client.h"

namespace ods::control {

// The callback token of a run (the run object as stored); called once per run.
using RunTokenSource = std::function<std::string(const Json& run)>;

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
  Result<void> start(const Json& run);
  Result<void> follow(const Json& run, const Json& job);
  Result<void> fail_run(const kube::ObjectKey& key, const std::string& reason, const std::string& message);

  kube::Client& client_;
  EventRecorder& events_;
  RunStatus status_;
  RunTokenSource token_source_;
  RunJobOptions job_options_;
};

}  // namespace ods::control
