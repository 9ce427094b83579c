#include "ods/state/build_seconds.h"

#include <nlohmann/json.hpp>
#include <set>

namespace ods::state {

double last_build_seconds(contracts::StateStore& store, const std::string& scope,
                          const std::vector<std::string>& nodes) {
  if (nodes.empty()) return 0;
  auto runs = store.runs(scope, kBuildSecondsEntries);
  if (!runs) return 0;
  std::set<std::string> pending(nodes.begin(), nodes.end());
  double seconds = 0;
  for (const auto& run : *runs) {  // newest first
    if (pending.empty()) break;
    if (run.details.find("\"node_seconds\"") == std::string::npos) continue;  // no parse for entries without
    const auto details = nlohmann::json::parse(run.details.empty() ? "{}" : run.details, nullptr, false);
    if (!details.is_object() || !details.contains("node_seconds") || !details["node_seconds"].is_object()) continue;
    for (const auto& [id, value] : details["node_seconds"].items()) {
      if (!value.is_number() || pending.erase(id) == 0) continue;
      seconds += value.get<double>();
    }
  }
  return seconds;
}

}  // namespace ods::state
