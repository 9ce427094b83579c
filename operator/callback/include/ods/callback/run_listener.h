#pragma once
// What the callback server tells the operator as a run moves on. The operator implements it
// to write the DbtRun's status and the Prometheus metrics; tests record the calls.
#include <map>
#include <string>
#include <vector>

namespace ods::callback {

// Planning: the pod's inputs were accepted and are being planned.
// Building: the plan is persisted and answered; the pod builds `selection` (nothing when empty).
// Recording: the pod's results were accepted and are being recorded.
// Succeeded / Failed: the run is recorded (Failed: dbt failed, or the results could not be
// recorded; `message` says which).
enum class RunPhase { planning, building, recording, succeeded, failed };
const char* to_string(RunPhase phase);  // "Planning", "Building", ... (DbtRun status.phase)

struct RunSummary {
  std::string ns, name;  // the DbtRun
  std::string run_uid;   // its uid; also the run id in the state store's ledger and snapshots
  std::string scope;     // the state scope
  // From the plan (Building onwards): nodes to build / reused, by first reason code.
  int planned_build = 0, planned_reuse = 0;
  std::map<std::string, int> build_reasons, reuse_reasons;
  std::vector<std::string> selection;               // what `dbt build --select` gets
  std::map<std::string, double> probe_seconds;      // source id -> probe latency
  int unknown_data_versions = 0;                    // sources whose data version the probe couldn't tell
  std::map<std::string, int> sources_by_exactness;  // exactness label -> sources (run::sources_by_exactness)
  double seconds_saved = 0;  // the reused nodes' last recorded build times (ods state's time saved)
  // From the results (Succeeded / Failed).
  std::string outcome;  // "success" | "partial" | "failed" | "reused"; "" before
  int built = 0, failed = 0, skipped = 0, reused = 0;
  double duration_seconds = 0;  // the pod's whole run: compile, probe, build
  double build_seconds = 0;     // the seconds dbt reported for the nodes it ran, summed
  std::string snapshot_id;      // the snapshot committed ("" when none)
  std::string message;          // a sentence for the status (why it failed)
};

class RunListener {
 public:
  virtual ~RunListener() = default;

  // The run reached `phase`; `summary` holds what is known by then. Called from the server's
  // request threads, for different runs possibly at once (thread-safe); in order for one run.
  // A phase may be told again for the same run (a pod repeating a request after a
  // controller restart): writing status must be idempotent. Must not throw; should be quick
  // (the pod waits for the answer).
  virtual void on_phase(RunPhase phase, const RunSummary& summary) = 0;
};

}  // namespace ods::callback
