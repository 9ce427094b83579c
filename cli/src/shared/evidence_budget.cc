#include "evidence_budget.h"

#include <algorithm>

#include "ods/content/content_versions.h"
#include "ods/run/build_seconds.h"
#include "ods/run/evidence_cost.h"

namespace ods::cli {

std::map<std::string, std::string> sources_too_costly(contracts::StateStore& store, const std::string& scope,
                                                      const planner::ProjectInputs& inputs) {
  const run::RecordedEvidenceCosts recorded = run::last_evidence_costs(store, scope);
  std::vector<std::string> priced;
  for (const auto& source : inputs.sources)
    if (recorded.seconds.contains(source.id)) priced.push_back(source.id);
  if (priced.empty()) return {};
  const run::Downstream downstream(inputs);
  const auto node_seconds = run::last_build_seconds(store, scope, downstream.nodes_below(priced));
  return run::choose_exact(downstream, priced, recorded, node_seconds, "its content fingerprint").unread;
}

void leave_content_unread(contracts::ProbeRequest& request, const std::map<std::string, std::string>& too_costly) {
  for (const auto& entry : too_costly) {
    auto& names = request.skip_statements[entry.first];
    if (std::find(names.begin(), names.end(), content::kContentStatement) == names.end())
      names.emplace_back(content::kContentStatement);
  }
}

bool note_content_unread(contracts::SourceVersion& version, const std::string& why) {
  if (version.version && version.version->exactness == planner::Exactness::exact) return false;
  std::erase_if(version.evidence, [](const planner::Evidence& e) { return e.kind == "source_content_unread"; });
  version.evidence.push_back(
      {planner::kExactEvidenceTooCostly, version.source_id, why, planner::Exactness::none, "evidence cost"});
  if (!version.version) version.why_unknown = "not fingerprinted: " + why;
  return true;
}

}  // namespace ods::cli
