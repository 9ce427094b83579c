#include "ods/planner/version_choice.h"

namespace ods::planner {

VersionChoice choose_version(const std::string& source_id, const VersionCandidates& c) {
  VersionChoice choice;
  auto lost = [&](const char* strategy, const std::string& why) {
    choice.evidence.push_back(
        {"version_strategy_skipped", source_id, std::string(strategy) + ": " + why, Exactness::none, "version choice"});
  };
  auto won = [&](const char* strategy, const DataVersion& v) {
    choice.version = v;
    choice.strategy = strategy;
    choice.evidence.push_back({"version_strategy", source_id, strategy, v.exactness, v.origin});
  };
  if (c.table_version && *c.table_version) {
    won("relation_versions", **c.table_version);
    return choice;
  }
  lost("relation_versions", c.table_version ? (c.table_why_unknown.empty() ? "no version" : c.table_why_unknown)
                                            : "the warehouse was not asked (no connection in this command)");
  if (c.max_loaded_at) {
    won("source_freshness", *c.max_loaded_at);
    return choice;
  }
  lost("source_freshness", c.freshness_why_unknown.empty() ? "no max_loaded_at" : c.freshness_why_unknown);
  choice.strategy = "none";
  choice.evidence.push_back(
      {"version_strategy", source_id, "none: the source counts as changed", Exactness::none, "version choice"});
  return choice;
}

void apply_version_choice(SourceInput& source, const std::optional<std::optional<DataVersion>>& table_version,
                          const std::string& table_why_unknown) {
  VersionCandidates c;
  c.table_version = table_version;
  c.table_why_unknown = table_why_unknown;
  c.max_loaded_at = source.version;
  for (const auto& ev : source.evidence) {
    if (ev.exactness == Exactness::none && !ev.value.empty()) c.freshness_why_unknown = ev.value;
  }
  VersionChoice choice = choose_version(source.id, c);
  source.version = choice.version;
  source.evidence = std::move(choice.evidence);
}

}  // namespace ods::planner
