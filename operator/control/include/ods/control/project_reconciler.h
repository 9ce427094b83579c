#pragma once
// The DbtProject reconciler (docs/kubernetes.md, "Scheduling" and "History"):
// - parses spec.schedule; an invalid one sets Stalled True and Ready False (reason
//   InvalidSchedule, the parser's message) and starts no run;
// - when the schedule is due (the first tick after status.lastScheduleTime, or after the
//   project's creation) and spec.suspend is not true, creates one DbtRun (owner reference to the
//   project, label ods.dev/project, trigger Schedule) named after the tick, so a restarted
//   operator cannot create it twice; several missed ticks give one run. While a run of the
//   project is active, policies.concurrency Forbid skips the tick (Event RunSkipped) and Replace
//   fails the active run (reason Replaced), deletes its Job and starts the new one;
// - deletes the oldest finished runs beyond spec.historyLimit (default 10);
// - writes status: observedGeneration, lastScheduleTime, lastRun (name, phase, completionTime,
//   built, reused, reusePercent of the latest finished run — the printer columns) and the
//   conditions Ready, Reconciling (while a run is active) and Stalled; only when they changed;
// - emits Events for created and skipped runs and for an invalid schedule;
// - asks to be called again at the next tick (ReconcileResult::requeue_after).
#include "ods/base/clock.h"
#include "ods/control/events.h"
#include "ods/control/reconciler.h"
#include "ods/kube/client.h"

namespace ods::control {

class DbtProjectReconciler final : public Reconciler {
 public:
  // All three must outlive the reconciler.
  DbtProjectReconciler(kube::Client& client, Clock& clock, EventRecorder& events)
      : client_(client), clock_(clock), events_(events) {}

  [[nodiscard]] Result<ReconcileResult> reconcile(const kube::ObjectKey& key) override;

 private:
  kube::Client& client_;
  Clock& clock_;
  EventRecorder& events_;
};

// The project a DbtRun belongs to (spec.projectRef.name in the run's namespace): a change of a
// run enqueues this key in the project controller.
kube::ObjectKey project_key_of_run(const nlohmann::json& run);

}  // namespace ods::control
