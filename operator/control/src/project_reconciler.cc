#include "ods/control/project_reconciler.h"

#include <algorithm>

#include "ods/control/conditions.h"
#include "ods/control/cron.h"
#include "ods/control/objects.h"
#include "ods/control/run_job.h"
#include "ods/control/time_text.h"
#include "project_runs.h"

namespace ods::control {
namespace {

using namespace std::chrono;
namespace res = kube::resources;

// What the schedule step decided, for the status.
struct ScheduleOutcome {
  std::string ready_reason;
  std::string ready_message;
  std::optional<std::string> stalled_message;  // set: Stalled True, Ready False
  std::optional<milliseconds> requeue_after;
};

Json new_scheduled_run(const Json& project, TimePoint tick) {
  const kube::ObjectKey key = key_of(project);
  const auto minutes = duration_cast<std::chrono::minutes>(tick.time_since_epoch()).count();
  return {{"apiVersion", "ods.dev/v1alpha1"},
          {"kind", "DbtRun"},
          {"metadata",
           {{"name", bounded_name(key.name, "-" + std::to_string(minutes), 253)},
            {"namespace", key.namespace_name},
            {"labels", {{kProjectLabel, key.name}, {kManagedByLabel, kComponent}}},
            {"ownerReferences", Json::array({controller_reference(project)})}}},
          {"spec", {{"projectRef", {{"name", key.name}}}, {"trigger", "Schedule"}}}};
}

class ProjectPass {
 public:
  ProjectPass(kube::Client& client, TimePoint now, EventRecorder& events, Json project)
      : client_(client), now_(now), events_(events), project_(std::move(project)), key_(key_of(project_)) {}

  Result<ReconcileResult> run() {
    auto listed = client_.list(res::kDbtRuns, key_.namespace_name, runs_of_project_options(key_.name));
    if (!listed) return std::unexpected(api_failure("listing the DbtRuns of " + key_.str(), listed.error()));
    runs_ = runs_of_project((*listed)["items"], key_.name);
    if (auto pruned = prune_history(); !pruned) return std::unexpected(pruned.error());
    auto scheduled = schedule();
    if (!scheduled) return std::unexpected(scheduled.error());
    if (auto written = write_status(*scheduled); !written) return std::unexpected(written.error());
    return ReconcileResult{scheduled->requeue_after};
  }

 private:
  Result<void> prune_history() {
    const Json::json_pointer limit_at("/spec/historyLimit");
    const long long limit = project_.contains(limit_at) && project_.at(limit_at).is_number_integer()
                                ? std::max<long long>(1, project_.at(limit_at).get<long long>())
                                : 10;
    while (static_cast<long long>(runs_.finished.size()) > limit) {
      const Json& run = runs_.finished.front();
      const kube::ObjectKey oldest = key_of(run);
      // The Job and Secret go with the run (owner references); deleting them here too keeps the
      // limit where no garbage collector runs (the test control plane).
      const std::string job = string_at(run, "/status/jobName");
      const std::pair<const kube::Resource*, std::string> owned[] = {
          {&res::kJobs, job}, {&res::kSecrets, run_token_secret_name(oldest.name)}, {&res::kDbtRuns, oldest.name}};
      for (const auto& [resource, name] : owned) {
        if (name.empty()) continue;
        if (auto removed = client_.remove(*resource, {oldest.namespace_name, name}); !removed) {
          return std::unexpected(api_failure("deleting " + resource->plural + " " + oldest.namespace_name + "/" + name +
                                                 " of the old DbtRun " + oldest.str(),
                                             removed.error()));
        }
      }
      runs_.finished.erase(runs_.finished.begin());
    }
    return {};
  }

  Result<ScheduleOutcome> schedule() {
    const std::string text = string_at(project_, "/spec/schedule");
    if (text.empty())
      return ScheduleOutcome{"Unscheduled", "no spec.schedule: a run starts when a DbtRun is created", {}, {}};
    auto cron = CronSchedule::parse(text);
    if (!cron) {
      const Json conditions = project_.value("status", Json::object()).value("conditions", Json());
      const Json* stalled = find_condition(conditions, condition::kStalled);
      const std::string message = "spec.schedule: " + cron.error().message;
      if (stalled == nullptr || stalled->value("message", "") != message) {
        events_.record(project_, EventType::warning, "InvalidSchedule", message);
      }
      return ScheduleOutcome{"InvalidSchedule", "", message, {}};
    }
    const Json::json_pointer suspend_at("/spec/suspend");
    if (project_.contains(suspend_at) && project_.at(suspend_at) == true) {
      return ScheduleOutcome{"Suspended", "spec.suspend is true: no scheduled run starts", {}, {}};
    }
    const auto reference = time_at(project_, "/status/lastScheduleTime")
                               .value_or(time_at(project_, "/metadata/creationTimestamp").value_or(now_));
    const auto due = cron->next_after(reference);
    const bool never_run =
        !time_at(project_, "/status/lastScheduleTime") && runs_.active.empty() && runs_.finished.empty();
    if (never_run) {
      // A project that has never run is built at once (it is not "kept built" until then), then
      // on its schedule. Named after this minute, so a restarted operator cannot start it twice.
      if (auto started = start_scheduled_run(floor<minutes>(now_)); !started) return std::unexpected(started.error());
      last_schedule_time_ = now_;
    } else if (due && *due <= now_) {
      if (auto started = start_scheduled_run(*due); !started) return std::unexpected(started.error());
      last_schedule_time_ = now_;
    }
    const auto next = cron->next_after(std::max(now_, last_schedule_time_.value_or(reference)));
    ScheduleOutcome outcome{"Scheduled", "", {}, {}};
    if (next) {
      outcome.ready_message = "next run at " + format_time(*next);
      outcome.requeue_after = ceil<milliseconds>(*next - now_);
    }
    return outcome;
  }

  Result<void> start_scheduled_run(TimePoint tick) {
    const std::string policy = string_at(project_, "/spec/policies/concurrency", "Forbid");
    if (!runs_.active.empty() && policy != "Allow") {
      const Json& active = runs_.active.front();
      const std::string active_name = string_at(active, "/metadata/name");
      if (policy != "Replace") {
        events_.record(project_, EventType::normal, "RunSkipped",
                       "the run due at " + format_time(tick) + " was skipped: run " + active_name +
                           " is still active (policies.concurrency Forbid)");
        return {};
      }
      for (const Json& run : runs_.active) {
        if (auto replaced = replace_run(run); !replaced) return replaced;
      }
    }
    const Json run = new_scheduled_run(project_, tick);
    const std::string name = run["metadata"]["name"];
    auto created = client_.create(res::kDbtRuns, key_.namespace_name, run);
    if (!created && created.error().status != 409) {  // 409: created before a restart
      return std::unexpected(api_failure("creating the DbtRun " + key_.namespace_name + "/" + name, created.error()));
    }
    if (created) {
      events_.record(project_, EventType::normal, "RunCreated",
                     "created DbtRun " + name + " for the schedule tick at " + format_time(tick));
      runs_.active.push_back(*created);
    }
    return {};
  }

  // policies.concurrency Replace: the active run fails (reason Replaced) and its Job goes.
  Result<void> replace_run(const Json& run) {
    const kube::ObjectKey run_key = key_of(run);
    const Json patch = {{"status",
                         {{"phase", "Failed"},
                          {"reason", "Replaced"},
                          {"message", "replaced by a newer scheduled run (policies.concurrency Replace)"},
                          {"completionTime", format_time(now_)}}}};
    if (auto patched = client_.merge_patch(res::kDbtRuns, run_key, patch, kube::Subresource::status); !patched) {
      return std::unexpected(api_failure("failing the replaced DbtRun " + run_key.str(), patched.error()));
    }
    if (const std::string job = string_at(run, "/status/jobName"); !job.empty()) {
      if (auto removed = client_.remove(res::kJobs, {run_key.namespace_name, job}); !removed) {
        return std::unexpected(api_failure("deleting the Job of the replaced run " + run_key.str(), removed.error()));
      }
    }
    events_.record(project_, EventType::normal, "RunReplaced", "run " + run_key.name + " was replaced by a newer run");
    runs_.active.clear();
    return {};
  }

  Result<void> write_status(const ScheduleOutcome& outcome) {
    const Json old_status = project_.value("status", Json::object());
    Json status = old_status;
    const std::int64_t generation = generation_of(project_);
    status["observedGeneration"] = generation;
    if (last_schedule_time_) status["lastScheduleTime"] = format_time(*last_schedule_time_);
    if (!runs_.finished.empty()) status["lastRun"] = last_run_summary(runs_.finished.back());
    Json conditions = status.value("conditions", Json::array());
    Condition ready{std::string(condition::kReady), std::string(condition::kTrue), outcome.ready_reason,
                    outcome.ready_message, generation};
    if (outcome.stalled_message) {
      ready.status = condition::kFalse;
      ready.message = *outcome.stalled_message;
    } else if (!runs_.finished.empty() && string_at(runs_.finished.back(), "/status/phase") == "Failed") {
      const Json& failed = runs_.finished.back();
      ready = {std::string(condition::kReady), std::string(condition::kFalse), "LastRunFailed",
               "run " + string_at(failed, "/metadata/name") + " failed (" + string_at(failed, "/status/reason") +
                   "): " + string_at(failed, "/status/message"),
               generation};
    }
    set_condition(conditions, ready, now_);
    set_condition(
        conditions,
        {std::string(condition::kStalled), std::string(outcome.stalled_message ? condition::kTrue : condition::kFalse),
         "InvalidSchedule", outcome.stalled_message.value_or(""), generation},
        now_);
    Condition reconciling{std::string(condition::kReconciling), std::string(condition::kFalse), "RunActive", "",
                          generation};
    if (!runs_.active.empty()) {
      const Json& active = runs_.active.back();
      reconciling.status = condition::kTrue;
      reconciling.message =
          "run " + string_at(active, "/metadata/name") + " is " + string_at(active, "/status/phase", "Pending");
    }
    set_condition(conditions, reconciling, now_);
    status["conditions"] = conditions;
    if (status == old_status) return {};
    auto written = client_.merge_patch(res::kDbtProjects, key_, {{"status", status}}, kube::Subresource::status);
    if (!written)
      return std::unexpected(api_failure("writing the status of DbtProject " + key_.str(), written.error()));
    return {};
  }

  kube::Client& client_;
  const TimePoint now_;
  EventRecorder& events_;
  const Json project_;
  const kube::ObjectKey key_;
  ProjectRuns runs_;
  std::optional<TimePoint> last_schedule_time_;
};

}  // namespace

Result<ReconcileResult> DbtProjectReconciler::reconcile(const kube::ObjectKey& key) {
  auto project = client_.find(res::kDbtProjects, key);
  if (!project) return std::unexpected(api_failure("reading DbtProject " + key.str(), project.error()));
  if (!project->has_value()) return ReconcileResult{};  // deleted: its runs go with it (owner references)
  return ProjectPass(client_, clock_.now(), events_, std::move(**project)).run();
}

kube::ObjectKey project_key_of_run(const Json& run) {
  return {string_at(run, "/metadata/namespace"), string_at(run, "/spec/projectRef/name")};
}

}  // namespace ods::control
