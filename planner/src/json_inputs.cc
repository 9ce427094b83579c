// Project inputs <-> JSON.
#include "json_values.h"
#include "ods/base/sha256.h"
#include "ods/planner/json_io.h"

namespace ods::planner {

using nlohmann::json;
using namespace internal;

namespace {

json node_to_json(const NodeInput& n) {
  json j{{"id", n.id},
         {"name", n.name},
         {"resource_type", n.resource_type},
         {"relation", n.relation},
         {"parents", n.parents},
         {"fingerprint", n.fingerprint.components},
         {"raw_digest", n.raw_digest},
         {"sql_normalised", n.sql_normalised},
         {"incomplete", n.incomplete},
         {"always_build", n.always_build},
         {"self_contained", n.self_contained},
         {"checks_digest", n.checks_digest}};
  json policy = json::object();
  if (n.policy.lag_tolerance_seconds) policy["lag_tolerance_seconds"] = *n.policy.lag_tolerance_seconds;
  if (n.policy.require_fresh_data_from_all) policy["require_fresh_data_from"] = "all";
  if (!n.policy.error.empty()) policy["error"] = n.policy.error;
  j["policy"] = policy;
  if (n.checks_need_build) j["checks_need_build"] = true;  // absent when false: older documents read the same
  if (n.build_replaces_relation) j["build_replaces_relation"] = true;                             // the same
  if (n.dropped_when_parent_replaced) j["dropped_when_parent_replaced"] = true;                   // the same
  if (!n.compile_needs_upstream.empty()) j["compile_needs_upstream"] = n.compile_needs_upstream;  // the same
  if (!n.compile_key.empty()) j["compile_key"] = n.compile_key;                                   // the same
  if (!n.sql_from_run.empty()) j["sql_from_run"] = n.sql_from_run;                                // the same
  return j;
}

std::vector<std::string> strings(const json& obj, const std::string& path, const char* key) {
  std::vector<std::string> out;
  if (!obj.contains(key)) return out;
  for (const auto& v : array_at(obj, path, key)) {
    if (!v.is_string()) throw FieldError(member_path(path, key), "expected strings");
    out.push_back(v.get<std::string>());
  }
  return out;
}

bool opt_bool(const json& obj, const std::string& path, const char* key) {
  const json* m = member_as(obj, path, key, Kind::boolean, Need::optional);
  return m != nullptr && m->get<bool>();
}

NodeInput node_from_json(const json& j, const std::string& path) {
  NodeInput n;
  n.id = string_at(j, path, "id");
  std::string p = path + "[" + n.id + "]";
  n.name = string_at(j, p, "name");
  n.resource_type = string_at(j, p, "resource_type");
  n.relation = string_at(j, p, "relation", Need::optional);
  n.parents = strings(j, p, "parents");
  for (const auto& [name, digest] : object_at(j, p, "fingerprint").items()) {
    n.fingerprint.components[name] =
        value_as(digest, member_path(p + ".fingerprint", name), Kind::string).get<std::string>();
  }
  n.raw_digest = string_at(j, p, "raw_digest", Need::optional);
  n.sql_normalised = opt_bool(j, p, "sql_normalised");
  n.incomplete = strings(j, p, "incomplete");
  n.always_build = strings(j, p, "always_build");
  n.self_contained = opt_bool(j, p, "self_contained");
  n.checks_digest = string_at(j, p, "checks_digest", Need::optional);
  n.checks_need_build = opt_bool(j, p, "checks_need_build");
  n.build_replaces_relation = opt_bool(j, p, "build_replaces_relation");
  n.dropped_when_parent_replaced = opt_bool(j, p, "dropped_when_parent_replaced");
  n.compile_needs_upstream = string_at(j, p, "compile_needs_upstream", Need::optional);
  n.compile_key = string_at(j, p, "compile_key", Need::optional);
  n.sql_from_run = string_at(j, p, "sql_from_run", Need::optional);
  if (j.contains("policy")) {
    const json& pol = object_at(j, p, "policy");
    if (pol.contains("lag_tolerance_seconds")) {
      n.policy.lag_tolerance_seconds =
          member_as(pol, p + ".policy", "lag_tolerance_seconds", Kind::integer)->get<std::int64_t>();
    }
    n.policy.require_fresh_data_from_all =
        string_at(pol, p + ".policy", "require_fresh_data_from", Need::optional) == "all";
    n.policy.error = string_at(pol, p + ".policy", "error", Need::optional);
  }
  return n;
}

}  // namespace

std::string to_json(const ProjectInputs& in) {
  json nodes = json::array();
  for (const auto& n : in.nodes) nodes.push_back(node_to_json(n));
  json sources = json::array();
  for (const auto& s : in.sources) {
    json ev = json::array();
    for (const auto& e : s.evidence) ev.push_back(evidence_to_json(e));
    json j{
        {"id", s.id}, {"name", s.name}, {"relation", s.relation}, {"evidence", ev}, {"checks_digest", s.checks_digest}};
    if (s.version) j["version"] = version_to_json(*s.version);
    sources.push_back(j);
  }
  return json{{"scheme", in.scheme},
              {"project", in.project},
              {"target", in.target},
              {"target_identity", in.target_identity},
              {"invocation_id", in.invocation_id},
              {"generated_at", in.generated_at},
              {"nodes", nodes},
              {"sources", sources},
              {"warnings", in.warnings}}
      .dump();
}

std::string inputs_digest(const ProjectInputs& inputs) { return sha256_hex(to_json(inputs)); }

Result<ProjectInputs> inputs_from_json(std::string_view text) {
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded()) return fail("invalid_inputs", "the project inputs document is not valid JSON");
  try {
    ProjectInputs in;
    in.scheme = string_at(doc, "inputs", "scheme");
    in.project = string_at(doc, "inputs", "project");
    in.target = string_at(doc, "inputs", "target", Need::optional);
    in.target_identity = string_at(doc, "inputs", "target_identity", Need::optional);
    in.invocation_id = string_at(doc, "inputs", "invocation_id", Need::optional);
    in.generated_at = string_at(doc, "inputs", "generated_at", Need::optional);
    for (const auto& n : array_at(doc, "inputs", "nodes")) in.nodes.push_back(node_from_json(n, "inputs.nodes"));
    for (const auto& s : array_at(doc, "inputs", "sources")) {
      SourceInput src;
      src.id = string_at(s, "inputs.sources", "id");
      std::string p = "inputs.sources[" + src.id + "]";
      src.name = string_at(s, p, "name");
      src.relation = string_at(s, p, "relation", Need::optional);
      if (s.contains("version")) src.version = version_from_json(s["version"], p + ".version");
      if (s.contains("evidence"))
        for (const auto& e : array_at(s, p, "evidence")) src.evidence.push_back(evidence_from_json(e, p + ".evidence"));
      src.checks_digest = string_at(s, p, "checks_digest", Need::optional);
      in.sources.push_back(std::move(src));
    }
    in.warnings = strings(doc, "inputs", "warnings");
    return in;
  } catch (const FieldError& e) {
    return fail("invalid_inputs", std::string("the project inputs document is malformed: ") + e.what());
  }
}

}  // namespace ods::planner
