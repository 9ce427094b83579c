#include "project_metrics.h"

#include <algorithm>

#include "ods/control/cron.h"
#include "ods/control/project_reconciler.h"
#include "ods/control/time_text.h"

namespace ods::operator_app {

using kube::Json;

namespace {

// Ticks looked at: a daily schedule restricted to weekdays shows its weekend gap within 8.
constexpr int kTicks = 8;

std::string project_of_object(const Json& project) {
  const auto& m = project["metadata"];
  return m.value("namespace", "") + "/" + m.value("name", "");
}

}  // namespace

std::optional<double> schedule_period_seconds(const std::string& schedule, ods::TimePoint now) {
  auto parsed = control::CronSchedule::parse(schedule);
  if (!parsed) return std::nullopt;
  auto tick = parsed->next_after(now);
  double longest = 0;
  for (int i = 0; tick && i < kTicks; ++i) {
    auto next = parsed->next_after(*tick);
    if (!next) break;
    longest = std::max(longest, std::chrono::duration<double>(*next - *tick).count());
    tick = next;
  }
  if (longest <= 0) return std::nullopt;
  return longest;
}

void ProjectMetrics::project_event(kube::WatchEvent::Type type, const Json& project) {
  const std::string key = project_of_object(project);
  std::lock_guard lock(mutex_);
  if (type == kube::WatchEvent::Type::deleted) {
    metrics_.remove_project(key);
    schedules_.erase(key);
    last_success_.erase(key);
    return;
  }
  const Json spec = project.value("spec", Json::object());
  const bool suspended = spec.value("suspend", false);
  const std::string schedule = suspended ? "" : spec.value("schedule", "");
  auto known = schedules_.find(key);
  if (known == schedules_.end()) metrics_.add_project(key);
  if (known != schedules_.end() && known->second == schedule) return;
  schedules_[key] = schedule;
  metrics_.set_schedule_period(key, schedule.empty() ? std::nullopt : schedule_period_seconds(schedule, clock_.now()));
}

void ProjectMetrics::run_event(kube::WatchEvent::Type type, const Json& run) {
  if (type == kube::WatchEvent::Type::deleted || !run.contains("status")) return;
  const Json& status = run["status"];
  if (status.value("phase", "") != "Succeeded") return;
  auto completed = control::parse_time(status.value("completionTime", ""));
  if (!completed) return;
  const std::string project = control::project_key_of_run(run).str();
  const double seconds = std::chrono::duration<double>(completed->time_since_epoch()).count();
  std::lock_guard lock(mutex_);
  auto& last = last_success_[project];
  if (seconds <= last) return;
  last = seconds;
  metrics_.set_last_success(project, seconds);
}

}  // namespace ods::operator_app
