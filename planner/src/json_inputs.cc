// Project inputs <-> JSON.
#include "json_fields.h"
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
  return j;
}

std::vector<std::string> strings(const json& obj, const std::string& path, const char* key) {
  std::vector<std::string> out;
  if (!obj.contains(key)) return out;
  for (const auto& v : get_array(obj, path, key)) {
    if (!v.is_string()) throw FieldError(path + "." + key + ": expected strings");
    out.push_back(v.get<std::string>());
  }
  return out;
}

bool opt_bool(const json& obj, const std::string& path, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return false;
  if (!it->is_boolean()) throw FieldError(path + "." + key + ": expected true or false");
  return it->get<bool>();
}

NodeInput node_from_json(const json& j, const std::string& path) {
  NodeInput n;
  n.id = get_string(j, path, "id");
  std::string p = path + "[" + n.id + "]";
  n.name = get_string(j, p, "name");
  n.resource_type = get_string(j, p, "resource_type");
  n.relation = opt_string(j, p, "relation");
  n.parents = strings(j, p, "parents");
  for (const auto& [name, digest] : get_object(j, p, "fingerprint").items()) {
    if (!digest.is_string()) throw FieldError(p + ".fingerprint." + name + ": expected a string");
    n.fingerprint.components[name] = digest.get<std::string>();
  }
  n.raw_digest = opt_string(j, p, "raw_digest");
  n.sql_normalised = opt_bool(j, p, "sql_normalised");
  n.incomplete = strings(j, p, "incomplete");
  n.always_build = strings(j, p, "always_build");
  n.self_contained = opt_bool(j, p, "self_contained");
  n.checks_digest = opt_string(j, p, "checks_digest");
  if (j.contains("policy")) {
    const json& pol = get_object(j, p, "policy");
    if (pol.contains("lag_tolerance_seconds")) {
      if (!pol["lag_tolerance_seconds"].is_number_integer())
        throw FieldError(p + ".policy.lag_tolerance_seconds: expected an integer");
      n.policy.lag_tolerance_seconds = pol["lag_tolerance_seconds"].get<std::int64_t>();
    }
    n.policy.require_fresh_data_from_all = opt_string(pol, p + ".policy", "require_fresh_data_from") == "all";
    n.policy.error = opt_string(pol, p + ".policy", "error");
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
    in.scheme = get_string(doc, "inputs", "scheme");
    in.project = get_string(doc, "inputs", "project");
    in.target = opt_string(doc, "inputs", "target");
    in.target_identity = opt_string(doc, "inputs", "target_identity");
    in.invocation_id = opt_string(doc, "inputs", "invocation_id");
    in.generated_at = opt_string(doc, "inputs", "generated_at");
    for (const auto& n : get_array(doc, "inputs", "nodes")) in.nodes.push_back(node_from_json(n, "inputs.nodes"));
    for (const auto& s : get_array(doc, "inputs", "sources")) {
      SourceInput src;
      src.id = get_string(s, "inputs.sources", "id");
      std::string p = "inputs.sources[" + src.id + "]";
      src.name = get_string(s, p, "name");
      src.relation = opt_string(s, p, "relation");
      if (s.contains("version")) src.version = version_from_json(s["version"], p + ".version");
      if (s.contains("evidence"))
        for (const auto& e : get_array(s, p, "evidence"))
          src.evidence.push_back(evidence_from_json(e, p + ".evidence"));
      src.checks_digest = opt_string(s, p, "checks_digest");
      in.sources.push_back(std::move(src));
    }
    in.warnings = strings(doc, "inputs", "warnings");
    return in;
  } catch (const FieldError& e) {
    return fail("invalid_inputs", std::string("the project inputs document is malformed: ") + e.what());
  }
}

}  // namespace ods::planner
