#pragma once
// callback::RunListener for the operator: each phase a run reaches through the callback server
// is written to the DbtRun's status (control::RunStatus: compare-and-swap, phases only move
// forward, a repeated phase merges) and fed to the Prometheus metrics once the plan or the
// outcome is known; every phase is logged.
#include <functional>
#include <mutex>
#include <set>

#include "ods/callback/run_listener.h"
#include "ods/control/run_status.h"
#include "ods/telemetry/json_log.h"
#include "ods/telemetry/operator_metrics.h"

namespace ods::operator_app {

// The DbtRun status members a phase's summary fills ("plan", "probe", "reason", "message").
kube::Json status_summary(callback::RunPhase phase, const callback::RunSummary& summary);

class RunPhaseWriter final : public callback::RunListener {
 public:
  // The metrics' `project` label of a run: "<namespace>/<DbtProject name>".
  using ProjectOf = std::function<std::string(const kube::ObjectKey& run)>;
  // status and metrics must outlive this object.
  RunPhaseWriter(control::RunStatusWriter& status, telemetry::OperatorMetrics& metrics, const telemetry::Logger& log,
                 ProjectOf project_of)
      : status_(status), metrics_(metrics), log_(log), project_of_(std::move(project_of)) {}
  void on_phase(callback::RunPhase phase, const callback::RunSummary& summary) override;

 private:
  // Metrics are counted once per run and phase, also when a pod repeats a request.
  bool first_time(const callback::RunSummary& summary, callback::RunPhase phase);
  void count_plan(const std::string& project, const callback::RunSummary& summary);

  control::RunStatusWriter& status_;
  telemetry::OperatorMetrics& metrics_;
  telemetry::Logger log_;
  ProjectOf project_of_;
  std::mutex mutex_;
  std::set<std::pair<std::string, int>> counted_;  // (run uid, phase)
};

}  // namespace ods::operator_app
