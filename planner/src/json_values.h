#pragma once
// Internal: nlohmann JSON forms of small shared values (DataVersion, Evidence) for the
// project inputs document (json_writing.h has the streamed forms).
#include <nlohmann/json.hpp>

#include "json_fields.h"
#include "ods/planner/evidence.h"
#include "ods/planner/json_io.h"
#include "ods/planner/plan.h"

namespace ods::planner::internal {

// to_json(DataVersion) (json_io.h), as a DOM.
inline nlohmann::json version_to_json(const DataVersion& v) { return nlohmann::json::parse(to_json(v)); }

inline Exactness exactness_field(const nlohmann::json& j, const std::string& path) {
  std::string word = get_string(j, path, "exactness");
  auto e = exactness_from_string(word);
  if (!e) throw FieldError(path + ".exactness: unknown exactness '" + word + "'");
  return *e;
}

inline DataVersion version_from_json(const nlohmann::json& j, const std::string& path) {
  return DataVersion{get_string(j, path, "value"), exactness_field(j, path), get_string(j, path, "origin"),
                     opt_string(j, path, "observed_at")};
}

inline nlohmann::json evidence_to_json(const Evidence& e) {
  return {{"kind", e.kind},
          {"subject", e.subject},
          {"value", e.value},
          {"exactness", to_string(e.exactness)},
          {"origin", e.origin}};
}

// A decision's reasons and evidence, as plan and check-plan entries show them.
inline nlohmann::json reasons_to_json(const std::vector<Reason>& reasons) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : reasons) out.push_back({{"code", r.code}, {"message", r.message}});
  return out;
}

inline nlohmann::json evidence_list_to_json(const std::vector<Evidence>& evidence) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& e : evidence) out.push_back(evidence_to_json(e));
  return out;
}

inline Evidence evidence_from_json(const nlohmann::json& j, const std::string& path) {
  return Evidence{get_string(j, path, "kind"), get_string(j, path, "subject"), opt_string(j, path, "value"),
                  exactness_field(j, path), opt_string(j, path, "origin")};
}

}  // namespace ods::planner::internal
