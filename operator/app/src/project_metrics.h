#pragma once
// The per-project gauges the alerts need, kept from the informers' events (no polling, so an
// idle operator does no work): ods_schedule_period_seconds from each DbtProject's schedule (the
// longest gap between its next ticks; none while suspended, unscheduled or invalid) and
// ods_last_successful_run_timestamp_seconds from the completion of its newest Succeeded DbtRun
// seen. A project's counters are created at 0 when it is first seen and its series removed
// when it is deleted (OperatorMetrics::add_project, remove_project).
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "ods/base/clock.h"
#include "ods/kube/client.h"
#include "ods/telemetry/operator_metrics.h"

namespace ods::operator_app {

// The longest gap between consecutive ticks of `schedule` among the next ones after `now`
// (enough of them to span a week's pattern); nullopt when it is not a valid schedule.
std::optional<double> schedule_period_seconds(const std::string& schedule, ods::TimePoint now);

class ProjectMetrics {
 public:
  // `metrics` and `clock` must outlive this object.
  ProjectMetrics(telemetry::OperatorMetrics& metrics, ods::Clock& clock) : metrics_(metrics), clock_(clock) {}

  // An informer event of a DbtProject / a DbtRun. Thread-safe.
  void project_event(kube::WatchEvent::Type type, const kube::Json& project);
  void run_event(kube::WatchEvent::Type type, const kube::Json& run);

 private:
  telemetry::OperatorMetrics& metrics_;
  ods::Clock& clock_;
  std::mutex mutex_;
  std::map<std::string, std::string> schedules_;  // project -> the schedule its period is of ("" none)
  std::map<std::string, double> last_success_;    // project -> Unix seconds
};

}  // namespace ods::operator_app
