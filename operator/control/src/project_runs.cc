#include "project_runs.h"

#include <algorithm>

#include "ods/control/objects.h"

namespace ods::control {
namespace {

TimePoint finish_time(const Json& run) {
  if (auto time = time_at(run, "/status/completionTime")) return *time;
  return time_at(run, "/metadata/creationTimestamp").value_or(TimePoint{});
}

long long integer_at(const Json& object, const char* pointer) {
  const Json::json_pointer at(pointer);
  return object.contains(at) && object.at(at).is_number_integer() ? object.at(at).get<long long>() : 0;
}

}  // namespace

bool run_finished(const Json& run) {
  const std::string phase = string_at(run, "/status/phase");
  return phase == "Succeeded" || phase == "Failed";
}

ProjectRuns runs_of_project(const Json& runs, const std::string& project) {
  ProjectRuns out;
  for (const Json& run : runs) {
    if (string_at(run, "/spec/projectRef/name") != project) continue;
    (run_finished(run) ? out.finished : out.active).push_back(run);
  }
  std::stable_sort(out.finished.begin(), out.finished.end(), [](const Json& a, const Json& b) {
    const TimePoint ta = finish_time(a), tb = finish_time(b);
    return ta != tb ? ta < tb : string_at(a, "/metadata/name") < string_at(b, "/metadata/name");
  });
  return out;
}

long long reuse_percent(long long built, long long reused) {
  return built + reused <= 0 ? 0 : reused * 100 / (built + reused);
}

Json last_run_summary(const Json& run) {
  const long long built = integer_at(run, "/status/plan/built");
  const long long reused = integer_at(run, "/status/plan/reused");
  Json summary = {{"name", string_at(run, "/metadata/name")},
                  {"phase", string_at(run, "/status/phase")},
                  {"built", built},
                  {"reused", reused},
                  {"reusePercent", reuse_percent(built, reused)}};
  if (const std::string completed = string_at(run, "/status/completionTime"); !completed.empty()) {
    summary["completionTime"] = completed;
  }
  return summary;
}

}  // namespace ods::control
