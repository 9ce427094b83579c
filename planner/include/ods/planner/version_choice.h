#pragma once
// The choice of a source's data version (ADR-0022 §2): the planner chooses, not the
// composition root, so every caller gets the same order and the same explanation.
// Order: relation_versions (a table version from the warehouse), then source_freshness
// (sources.json max_loaded_at), then none (the source counts as changed).
#include <optional>
#include <string>
#include <vector>

#include "ods/planner/evidence.h"
#include "ods/planner/inputs.h"

namespace ods::planner {

struct VersionCandidates {
  // relation_versions: nullopt when no ChangeProvider was asked (e.g. `ods state plan`).
  std::optional<std::optional<DataVersion>> table_version;
  std::string table_why_unknown;             // why the provider had no version ("not a Delta table", dbt's error)
  std::optional<DataVersion> max_loaded_at;  // source_freshness; nullopt: none
  std::string freshness_why_unknown;
};

struct VersionChoice {
  std::optional<DataVersion> version;  // nullopt: unknown, the source counts as changed
  std::string strategy;                // "relation_versions" | "source_freshness" | "none"
  std::vector<Evidence> evidence;      // the winner, and why each strategy before it lost
};

// Pure; thread-safe.
VersionChoice choose_version(const std::string& source_id, const VersionCandidates& candidates);

// Applies choose_version to `source`, replacing its version and evidence. The current
// source.version is taken as the max_loaded_at candidate.
void apply_version_choice(SourceInput& source, const std::optional<std::optional<DataVersion>>& table_version,
                          const std::string& table_why_unknown);

}  // namespace ods::planner
