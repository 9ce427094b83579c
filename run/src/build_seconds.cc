#include "ods/run/build_seconds.h"

#include <set>

#include "ods/run/run_details.h"

namespace ods::run {

std::map<std::string, double> last_build_seconds(contracts::StateStore& store, const std::string& scope,
                                                 const std::vector<std::string>& nodes) {
  std::map<std::string, double> out;
  if (nodes.empty()) return out;
  auto runs = store.runs(scope, kBuildSecondsEntries);
  if (!runs) return out;
  std::set<std::string> pending(nodes.begin(), nodes.end());
  for (const auto& run : *runs) {  // newest first
    if (pending.empty()) break;
    if (run.details.find("\"node_seconds\"") == std::string::npos) continue;  // no parse for entries without
    const RunDetails details = details_from_json(run.details);
    if (!details.node_seconds) continue;
    for (const auto& [id, seconds] : *details.node_seconds)
      if (pending.erase(id) > 0) out[id] = seconds;
  }
  return out;
}

double time_saved_seconds(contracts::StateStore& store, const std::string& scope, const planner::ExecutionPlan& plan) {
  std::vector<std::string> reused;
  for (const auto& e : plan.entries)
    if (e.action == planner::Action::reuse) reused.push_back(e.id);
  double seconds = 0;
  for (const auto& [id, s] : last_build_seconds(store, scope, reused)) seconds += s;
  return seconds;
}

}  // namespace ods::run
