#pragma once
// What the leader runs: informers on DbtProjects, DbtRuns and the runner Jobs, a work queue and
// a controller per kind (operator/control), and the callback service runner pods report to
// (operator/callback), opened in the replica's LeaderGate (every replica listens on the callback
// port; a follower answers 503 not_leader). Built when this replica starts leading, stopped when
// it stops.
//
// Event routing: a DbtProject change queues the project; a DbtRun change queues the run and its
// project (the project's status shows its last run); a Job change queues the DbtRun that owns it.
#include <atomic>
#include <memory>
#include <thread>

#include "ods/callback/leader_gate.h"
#include "ods/callback/run_token.h"
#include "ods/contracts/state_store.h"
#include "ods/kube/client.h"
#include "ods/telemetry/json_log.h"
#include "ods/telemetry/operator_metrics.h"
#include "operator_options.h"

namespace ods::operator_app {

struct RuntimeDeps {
  kube::Client& client;
  contracts::StateStore& store;
  callback::RunTokens tokens;
  telemetry::OperatorMetrics& metrics;
  telemetry::Logger log;
  OperatorOptions options;
  callback::LeaderGate& gate;  // the callback port's gate: opened by start(), closed by the destructor
};

class OperatorRuntime {
 public:
  // Starts the informers and waits (up to `sync_timeout`) for their first lists, then opens the
  // gate to the callback service and starts the controllers. Errors: "unavailable" (an informer
  // did not sync: the API server's last answer).
  [[nodiscard]] static Result<std::unique_ptr<OperatorRuntime>> start(RuntimeDeps deps,
                                                                      std::chrono::milliseconds sync_timeout);
  // Stops the controllers (waiting for reconciles in flight), closes the gate (waiting for the
  // callbacks in flight), stops the informers.
  ~OperatorRuntime();
  OperatorRuntime(const OperatorRuntime&) = delete;
  OperatorRuntime& operator=(const OperatorRuntime&) = delete;

  struct Parts;  // informers, queues, reconcilers, controllers: defined in the .cc

 private:
  explicit OperatorRuntime(std::unique_ptr<Parts> parts);
  std::unique_ptr<Parts> parts_;
};

}  // namespace ods::operator_app
