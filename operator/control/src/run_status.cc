#include "ods/control/run_status.h"

#include "ods/control/conditions.h"
#include "ods/control/objects.h"
#include "ods/control/time_text.h"
#include "project_runs.h"

namespace ods::control {
namespace {

constexpr int kFinishedRank = 6;

// The status `run` gets for `phase` and `summary` at `now`.
Json next_status(const Json& run, std::string_view phase_name, const Json& summary, TimePoint now) {
  Json status = run.value("status", Json::object());
  const std::int64_t generation = generation_of(run);
  const bool finished = phase_rank(phase_name) == kFinishedRank;
  const bool phase_changed = status.value("phase", "") != phase_name;
  status["phase"] = phase_name;
  status["observedGeneration"] = generation;
  for (const auto& [name, value] : summary.items()) {
    if (name == "plan" && value.is_object()) {
      Json plan = status.value("plan", Json::object());
      plan.update(value);
      const long long built = plan.value("built", 0LL), reused = plan.value("reused", 0LL);
      plan["reusePercent"] = reuse_percent(built, reused);
      status["plan"] = plan;
    } else {
      status[name] = value;
    }
  }
  if (phase_changed && !summary.contains("reason")) status["reason"] = std::string(phase_name);
  if (phase_changed && !summary.contains("message")) {
    status["message"] = finished ? "the run " + std::string(phase_name == phase::kSucceeded ? "succeeded" : "failed")
                                 : "the run is " + std::string(phase_name);
  }
  if (finished && !status.contains("completionTime")) status["completionTime"] = format_time(now);
  Json conditions = status.value("conditions", Json::array());
  const std::string reason = status.value("reason", std::string(phase_name));
  const std::string message = status.value("message", "");
  if (!finished) {
    set_condition(conditions, {"Ready", "Unknown", std::string(phase_name), message, generation}, now);
    set_condition(conditions, {"Reconciling", "True", std::string(phase_name), message, generation}, now);
  } else {
    const bool succeeded = phase_name == phase::kSucceeded;
    set_condition(conditions, {"Ready", succeeded ? "True" : "False", reason, message, generation}, now);
    set_condition(conditions, {"Reconciling", "False", reason, "", generation}, now);
  }
  status["conditions"] = conditions;
  return status;
}

}  // namespace

int phase_rank(std::string_view name) {
  if (name.empty()) return 0;
  constexpr std::string_view kOrder[] = {phase::kPending, phase::kCompiling, phase::kPlanning, phase::kBuilding,
                                         phase::kRecording};
  for (int i = 0; i < 5; ++i) {
    if (kOrder[i] == name) return i + 1;
  }
  if (name == phase::kSucceeded || name == phase::kFailed) return kFinishedRank;
  return -1;
}

Result<Json> RunStatus::set_phase(const kube::ObjectKey& key, std::string_view phase_name, const Json& summary) {
  if (phase_rank(phase_name) <= 0) {
    return fail("invalid_phase", "DbtRun " + key.str() + ": \"" + std::string(phase_name) +
                                     "\" is not a run phase (Pending, Compiling, Planning, Building, Recording, "
                                     "Succeeded, Failed)");
  }
  for (int attempt = 0; attempt < 5; ++attempt) {
    auto found = client_.find(kube::resources::kDbtRuns, key);
    if (!found) return std::unexpected(api_failure("reading DbtRun " + key.str(), found.error()));
    if (!found->has_value()) return fail("not_found", "DbtRun " + key.str() + " does not exist");
    const Json& run = **found;
    const std::string current = string_at(run, "/status/phase");
    if (phase_rank(current) == kFinishedRank) {
      return fail("run_finished", "DbtRun " + key.str() + " already " + current + "; its status no longer changes");
    }
    if (phase_rank(phase_name) < phase_rank(current)) {
      return fail("invalid_transition",
                  "DbtRun " + key.str() + " is " + current + "; it cannot go back to " + std::string(phase_name));
    }
    Json updated = run;
    updated["status"] = next_status(run, phase_name, summary, clock_.now());
    if (updated == run) return run;
    auto written = client_.replace(kube::resources::kDbtRuns, key, updated, kube::Subresource::status);
    if (!written && written.error().conflict()) continue;
    if (!written) return std::unexpected(api_failure("writing the status of DbtRun " + key.str(), written.error()));
    if (phase_rank(phase_name) == kFinishedRank) {
      const bool succeeded = phase_name == phase::kSucceeded;
      const std::string message = string_at(*written, "/status/message");
      events_.record(*written, succeeded ? EventType::normal : EventType::warning,
                     succeeded ? "RunSucceeded" : "RunFailed",
                     succeeded ? message : string_at(*written, "/status/reason") + ": " + message);
    }
    return *written;
  }
  return fail("kube_api", "writing the status of DbtRun " + key.str() + ": 5 conflicts in a row");
}

}  // namespace ods::control
