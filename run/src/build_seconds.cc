#include "ods/run/build_seconds.h"

#include <set>
#include <string_view>
#include <unordered_set>

#include "ods/run/run_details.h"

namespace ods::run {

namespace {

// Calls `found(id, seconds)` for each of `pending`'s nodes with its newest recorded build time,
// erasing it from `pending` (views of ids the caller keeps alive).
template <typename Found>
void newest_build_seconds(contracts::StateStore& store, const std::string& scope,
                          std::unordered_set<std::string_view>& pending, Found found) {
  if (pending.empty()) return;
  auto runs = store.runs_without_plans(scope, kBuildSecondsEntries);
  if (!runs) return;
  for (const auto& run : *runs) {  // newest first
    if (pending.empty()) break;
    if (run.details.find("\"node_seconds\"") == std::string::npos) continue;  // no parse for entries without
    const RunDetails details = details_from_json(run.details);
    if (!details.node_seconds) continue;
    for (const auto& [id, seconds] : *details.node_seconds)
      if (pending.erase(id) > 0) found(id, seconds);
  }
}

}  // namespace

std::map<std::string, double> last_build_seconds(contracts::StateStore& store, const std::string& scope,
                                                 const std::vector<std::string>& nodes) {
  std::map<std::string, double> out;
  std::unordered_set<std::string_view> pending(nodes.begin(), nodes.end());
  newest_build_seconds(store, scope, pending, [&](const std::string& id, double s) { out[id] = s; });
  return out;
}

double time_saved_seconds(contracts::StateStore& store, const std::string& scope, const planner::ExecutionPlan& plan) {
  std::unordered_set<std::string_view> reused;  // views of the plan's ids: no copy of 10k strings
  for (const auto& e : plan.entries)
    if (e.action == planner::Action::reuse) reused.insert(e.id);
  double seconds = 0;
  newest_build_seconds(store, scope, reused, [&](const std::string&, double s) { seconds += s; });
  return seconds;
}

RecordedEvidenceCosts last_evidence_costs(contracts::StateStore& store, const std::string& scope) {
  RecordedEvidenceCosts out;
  auto runs = store.runs_without_plans(scope, kBuildSecondsEntries);
  if (!runs) return out;
  std::set<std::string> mentioned;  // ids whose newest mention was read (skipped or not)
  for (const auto& run : *runs) {   // newest first
    if (run.details.find("\"exact_evidence_s") == std::string::npos) continue;  // no parse for entries without
    const RunDetails details = details_from_json(run.details);
    for (const auto& id : details.exact_evidence_skipped)
      if (mentioned.insert(id).second) out.skipped.insert(id);
    if (!details.exact_evidence_seconds) continue;
    for (const auto& [id, seconds] : *details.exact_evidence_seconds) {
      mentioned.insert(id);
      out.seconds.emplace(id, seconds);  // the newest stays
    }
  }
  return out;
}

}  // namespace ods::run
