#pragma once
// Writes the phase of a DbtRun: the callback side moves a run through Compiling, Planning,
// Building and Recording to Succeeded or Failed; the DbtRun reconciler sets Pending and fails
// runs whose Job failed or vanished. Every write is a compare-and-swap on the status subresource
// (retried on 409 Conflict), so two writers never lose each other's phase.
//
// Phases only move forward (Pending < Compiling < Planning < Building < Recording < Succeeded,
// Failed); the same phase again merges the summary. A finished run (Succeeded or Failed) is never
// changed again. Status written: phase, reason, message, observedGeneration, the summary's
// members (plan, probe, jobName, startTime: merged; plan.reusePercent computed from built and
// reused), completionTime when it finishes, conditions (Ready Unknown and Reconciling True while
// active; Ready True Succeeded, or Ready False with the failure's reason, when finished). Events:
// RunSucceeded (Normal) and RunFailed (Warning) when it finishes.
#include <nlohmann/json.hpp>
#include <string_view>

#include "ods/base/clock.h"
#include "ods/base/result.h"
#include "ods/control/events.h"
#include "ods/kube/client.h"

namespace ods::control {

using Json = nlohmann::json;

namespace phase {
inline constexpr std::string_view kPending = "Pending";
inline constexpr std::string_view kCompiling = "Compiling";
inline constexpr std::string_view kPlanning = "Planning";
inline constexpr std::string_view kBuilding = "Building";
inline constexpr std::string_view kRecording = "Recording";
inline constexpr std::string_view kSucceeded = "Succeeded";
inline constexpr std::string_view kFailed = "Failed";
}  // namespace phase

// The interface the callback side codes against (a fake in its unit tests).
class RunStatusWriter {
 public:
  virtual ~RunStatusWriter() = default;
  // Moves run `key` to `phase` and merges `summary` into its status (see RunStatus).
  [[nodiscard]] virtual Result<Json> set_phase(const kube::ObjectKey& key, std::string_view phase,
                                               const Json& summary) = 0;
};

class RunStatus final : public RunStatusWriter {
 public:
  // All three must outlive this object. Thread-safe.
  RunStatus(kube::Client& client, Clock& clock, EventRecorder& events)
      : client_(client), clock_(clock), events_(events) {}

  // Moves run `key` to `phase` and merges `summary` into its status: any of "plan"
  // ({"total","built","reused"}), "probe", "jobName", "startTime", and "reason" / "message"
  // (CamelCase reason and text; for Failed they say why). Returns the stored run.
  // Errors: "invalid_phase" (not a phase name), "not_found" (no such run), "run_finished" (the
  // run already Succeeded or Failed), "invalid_transition" (a phase before the current one),
  // "kube_api" (the API failed, or 5 conflicts in a row).
  [[nodiscard]] Result<Json> set_phase(const kube::ObjectKey& key, std::string_view phase,
                                       const Json& summary) override;

 private:
  kube::Client& client_;
  Clock& clock_;
  EventRecorder& events_;
};

// The position of `phase` in the run's life (0 for none, 1 Pending … 6 for Succeeded and
// Failed); -1 for an unknown name.
int phase_rank(std::string_view phase);

}  // namespace ods::control
