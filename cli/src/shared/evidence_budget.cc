#include "evidence_budget.h"

#include <algorithm>
#include <cctype>

#include "ods/content/content_versions.h"
#include "ods/run/build_seconds.h"
#include "ods/run/evidence_cost.h"

namespace ods::cli {

namespace {

// The parts of a dotted relation name ("db"."raw"."orders", `p`.`d`.`t`, raw.orders), quotes
// removed; empty when a quote is left open.
std::vector<std::string> relation_parts(const std::string& relation) {
  std::vector<std::string> parts(1);
  char quote = 0;
  for (char c : relation) {
    if (quote != 0) {
      if (c == quote)
        quote = 0;
      else
        parts.back() += c;
    } else if (c == '"' || c == '`') {
      quote = c;
    } else if (c == '.') {
      parts.emplace_back();
    } else {
      parts.back() += c;
    }
  }
  if (quote != 0) return {};
  return parts;
}

std::string lower_literal(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

void wrap(contracts::ProbeStatement& statement, const std::string& unread) {
  if (statement.name != content::kContentStatement) return;
  statement.sql = "select * from (" + statement.sql + ") as ods_exact__ where not (" + unread + ")";
}

}  // namespace

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

void leave_content_unread(contracts::ProbeRequest& request, const std::vector<const planner::SourceInput*>& sources) {
  std::string unread;
  for (const planner::SourceInput* source : sources) {
    const auto parts = relation_parts(source->relation);
    if (parts.size() < 2 || parts.back().empty()) continue;
    unread += std::string(unread.empty() ? "" : " or ") +
              "(lower('{schema}') = " + lower_literal(parts[parts.size() - 2]) +
              " and lower('{identifier}') = " + lower_literal(parts.back()) + ")";
  }
  if (unread.empty()) return;
  for (auto& statement : request.statements) wrap(statement, unread);
  if (request.fallback)
    for (auto& statement : request.fallback->statements) wrap(statement, unread);
  for (auto& fallback : request.further_fallbacks)
    for (auto& statement : fallback.statements) wrap(statement, unread);
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
