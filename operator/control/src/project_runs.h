#pragma once
// The runs of one DbtProject, as the project reconciler sees them (private to operator/control).
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ods/base/clock.h"

namespace ods::control {

using Json = nlohmann::json;

struct ProjectRuns {
  std::vector<Json> finished;  // Succeeded or Failed, oldest completion first
  std::vector<Json> active;    // any other phase (a new run has none yet)
};

bool run_finished(const Json& run);
// Splits `runs` (DbtRun objects of any project) into the finished and active runs of `project`.
ProjectRuns runs_of_project(const Json& runs, const std::string& project);
// status.lastRun for the latest finished run: name, phase, completionTime, built, reused,
// reusePercent (rounded down; 0 when nothing was planned).
Json last_run_summary(const Json& run);
// reused / (built + reused) in percent, rounded down; 0 for an empty plan.
long long reuse_percent(long long built, long long reused);

}  // namespace ods::control
