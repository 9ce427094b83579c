// Snapshot documents <-> JSON (schema 1.2; 1.0 and 1.1 documents read).
#include <charconv>

#include "json_fields.h"
#include "json_values.h"
#include "ods/planner/json_io.h"

namespace ods::planner {

using nlohmann::json;
using namespace internal;

namespace {

json node_to_json(const NodeState& n) {
  json j{{"fingerprint", n.fingerprint.components},
         {"raw_digest", n.raw_digest},
         {"built_at", n.built_at},
         {"run_id", n.run_id},
         {"parent_runs", n.parent_runs}};
  json versions = json::object();
  for (const auto& [id, v] : n.source_versions) versions[id] = version_to_json(v);
  j["source_versions"] = versions;
  if (n.tested) j["tested"] = test_record_to_json(*n.tested);
  return j;
}

NodeState node_from_json(const json& j, const std::string& path) {
  NodeState n;
  for (const auto& [name, digest] : get_object(j, path, "fingerprint").items()) {
    if (!digest.is_string()) throw FieldError(path + ".fingerprint." + name + ": expected a string");
    n.fingerprint.components[name] = digest.get<std::string>();
  }
  n.raw_digest = opt_string(j, path, "raw_digest");
  n.built_at = get_string(j, path, "built_at");
  n.run_id = get_string(j, path, "run_id");
  if (j.contains("parent_runs")) {
    for (const auto& [id, run] : get_object(j, path, "parent_runs").items()) {
      if (!run.is_string()) throw FieldError(path + ".parent_runs." + id + ": expected a string");
      n.parent_runs[id] = run.get<std::string>();
    }
  }
  if (j.contains("source_versions")) {
    for (const auto& [id, v] : get_object(j, path, "source_versions").items())
      n.source_versions[id] = version_from_json(v, path + ".source_versions." + id);
  }
  if (j.contains("tested") && !j["tested"].is_null()) n.tested = test_record_from_json(j["tested"], path + ".tested");
  return n;
}

SchemaVersion parse_schema(const std::string& text) {
  SchemaVersion v{0, 0};
  auto dot = text.find('.');
  if (dot == std::string::npos) throw FieldError("schema_version: '" + text + "' is not MAJOR.MINOR");
  auto a = std::from_chars(text.data(), text.data() + dot, v.major);
  auto b = std::from_chars(text.data() + dot + 1, text.data() + text.size(), v.minor);
  if (a.ec != std::errc() || b.ec != std::errc() || b.ptr != text.data() + text.size())
    throw FieldError("schema_version: '" + text + "' is not MAJOR.MINOR");
  return v;
}

}  // namespace

std::string to_json(const StateSnapshot& s) {
  json nodes = json::object();
  for (const auto& [id, n] : s.nodes) nodes[id] = node_to_json(n);
  json sources = json::object();
  for (const auto& [id, src] : s.sources) {
    json j = json::object();
    if (src.tested) j["tested"] = test_record_to_json(*src.tested);
    if (src.version) j["version"] = version_to_json(*src.version);
    sources[id] = j;
  }
  json doc{{"schema_version", s.schema.to_string()},
           {"project", s.project},
           {"environment", s.environment},
           {"target_identity", s.target_identity},
           {"run_id", s.run_id},
           {"run_started_at", s.run_started_at},
           {"nodes", nodes}};
  if (!s.sources.empty()) doc["sources"] = sources;
  return doc.dump();
}

Result<StateSnapshot> snapshot_from_json(std::string_view text) {
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded()) return fail("corrupt", "the snapshot document is not valid JSON");
  try {
    StateSnapshot s;
    s.schema = parse_schema(get_string(doc, "snapshot", "schema_version"));
    if (!kSnapshotSchema.can_read(s.schema)) {
      return fail("newer_schema", "the snapshot has schema " + s.schema.to_string() + "; this ods reads " +
                                      std::to_string(kSnapshotSchema.major) + ".0 to " + kSnapshotSchema.to_string() +
                                      " (upgrade ods)");
    }
    s.project = get_string(doc, "snapshot", "project");
    s.environment = get_string(doc, "snapshot", "environment");
    s.target_identity = opt_string(doc, "snapshot", "target_identity");  // absent before 1.1
    s.run_id = get_string(doc, "snapshot", "run_id");
    s.run_started_at = get_string(doc, "snapshot", "run_started_at");
    for (const auto& [id, n] : get_object(doc, "snapshot", "nodes").items())
      s.nodes[id] = node_from_json(n, "snapshot.nodes." + id);
    if (doc.contains("sources")) {  // absent before 1.2
      for (const auto& [id, src] : get_object(doc, "snapshot", "sources").items()) {
        SourceState st;
        std::string path = "snapshot.sources." + id;
        if (src.contains("tested")) st.tested = test_record_from_json(src["tested"], path + ".tested");
        if (src.contains("version")) st.version = version_from_json(src["version"], path + ".version");
        s.sources[id] = st;
      }
    }
    s.schema = kSnapshotSchema;  // read into the current shape
    return s;
  } catch (const FieldError& e) {
    return fail("corrupt", std::string("the snapshot document is damaged: ") + e.what());
  }
}

}  // namespace ods::planner
