// Snapshot documents to JSON (schema 1.5), streamed: canonical, i.e. members in key order
// and compact, byte for byte what the nlohmann DOM of the same document dumps.
#include "json_writing.h"
#include "ods/planner/json_io.h"

namespace ods::planner {

namespace {

using internal::write_test_record;
using internal::write_version;

void write_node(json::Writer& w, const NodeState& n) {
  w.begin_object();
  w.key("built_at").string(n.built_at);
  if (!n.compile_key.empty()) w.key("compile_key").string(n.compile_key);
  if (n.content) write_version(w.key("content"), *n.content);
  w.key("fingerprint");
  internal::write_string_map(w, n.fingerprint.components);
  if (!n.parent_contents.empty()) {
    w.key("parent_contents").begin_object();
    for (const auto& [id, v] : n.parent_contents) write_version(w.key(id), v);
    w.end_object();
  }
  w.key("parent_runs");
  internal::write_string_map(w, n.parent_runs);
  w.key("raw_digest").string(n.raw_digest);
  if (!n.relation_identity.empty()) w.key("relation_identity").string(n.relation_identity);
  w.key("run_id").string(n.run_id);
  w.key("source_versions").begin_object();
  for (const auto& [id, v] : n.source_versions) write_version(w.key(id), v);
  w.end_object();
  if (n.tested) write_test_record(w.key("tested"), *n.tested);
  w.end_object();
}

}  // namespace

std::string to_json(const DataVersion& version) {
  std::string out;
  json::Writer w(out);
  write_version(w, version);
  return out;
}

std::string to_json(const StateSnapshot& s) {
  std::string out;
  json::Writer w(out);
  w.begin_object();
  w.key("environment").string(s.environment);
  w.key("nodes").begin_object();
  for (const auto& [id, n] : s.nodes) write_node(w.key(id), n);
  w.end_object();
  w.key("project").string(s.project);
  w.key("run_id").string(s.run_id);
  w.key("run_started_at").string(s.run_started_at);
  w.key("schema_version").string(s.schema.to_string());
  if (!s.sources.empty()) {
    w.key("sources").begin_object();
    for (const auto& [id, src] : s.sources) {
      w.key(id).begin_object();
      if (src.tested) write_test_record(w.key("tested"), *src.tested);
      if (src.version) write_version(w.key("version"), *src.version);
      w.end_object();
    }
    w.end_object();
  }
  w.key("target_identity").string(s.target_identity);
  w.end_object();
  return out;
}

}  // namespace ods::planner
