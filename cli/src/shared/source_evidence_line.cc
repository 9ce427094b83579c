#include "source_evidence_line.h"

#include <map>

namespace ods::cli {

std::string source_evidence_line(const planner::ExecutionPlan& plan) {
  std::map<std::string, planner::Exactness> by_source;
  for (const auto& e : plan.entries)
    for (const auto& ev : e.evidence)
      if (ev.kind == "version_strategy") by_source.emplace(ev.subject, ev.exactness);
  if (by_source.empty()) return "";
  std::map<planner::Exactness, int> counts;
  for (const auto& [source, exactness] : by_source) ++counts[exactness];
  std::string line;
  for (auto level : {planner::Exactness::exact, planner::Exactness::semantic, planner::Exactness::proxy,
                     planner::Exactness::inferred, planner::Exactness::none}) {
    auto it = counts.find(level);
    if (it == counts.end()) continue;
    line += (line.empty() ? "" : ", ") + std::to_string(it->second) + " " +
            (level == planner::Exactness::none ? std::string("unknown") : std::string(planner::to_string(level)));
  }
  return "Source evidence: " + line + ".";
}

}  // namespace ods::cli
