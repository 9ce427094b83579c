#pragma once
// Internal: nlohmann JSON forms of small shared values (DataVersion, Evidence) for the
// project inputs document (json_writing.h has the streamed forms).
#include <nlohmann/json.hpp>

#include "ods/json/fields.h"
#include "ods/planner/evidence.h"
#include "ods/planner/json_io.h"
#include "ods/planner/plan.h"

namespace ods::planner::internal {

// Typed reads of a DOM's fields (ods/json/fields.h); a reader's edge turns their FieldError
// into its Error.
using ods::json::array_at;
using ods::json::element_path;
using ods::json::FieldError;
using ods::json::Kind;
using ods::json::member_as;
using ods::json::member_path;
using ods::json::Need;
using ods::json::object_at;
using ods::json::string_at;
using ods::json::value_as;

// to_json(DataVersion) (json_io.h), as a DOM.
inline nlohmann::json version_to_json(const DataVersion& v) { return nlohmann::json::parse(to_json(v)); }

inline Exactness exactness_field(const nlohmann::json& j, const std::string& path) {
  std::string word = string_at(j, path, "exactness");
  auto e = exactness_from_string(word);
  if (!e) throw FieldError(member_path(path, "exactness"), "unknown exactness '" + word + "'");
  return *e;
}

// covers_schema: true only when present and true (absent or null: false, older documents).
inline bool covers_schema_field(const nlohmann::json& j, const std::string& path) {
  const nlohmann::json* m = member_as(j, path, "covers_schema", Kind::boolean, Need::optional);
  return m != nullptr && m->get<bool>();
}

inline DataVersion version_from_json(const nlohmann::json& j, const std::string& path) {
  return DataVersion{string_at(j, path, "value"), exactness_field(j, path), string_at(j, path, "origin"),
                     string_at(j, path, "observed_at", Need::optional), covers_schema_field(j, path)};
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
  return Evidence{string_at(j, path, "kind"), string_at(j, path, "subject"),
                  string_at(j, path, "value", Need::optional), exactness_field(j, path),
                  string_at(j, path, "origin", Need::optional)};
}

}  // namespace ods::planner::internal
