#pragma once
// Internal: the streamed JSON forms of small shared values, members in key order (as the
// nlohmann DOM forms in json_values.h dump them).
#include <map>
#include <string>

#include "ods/json/writer.h"
#include "ods/planner/evidence.h"
#include "ods/planner/snapshot.h"

namespace ods::planner::internal {

inline void write_string_map(json::Writer& w, const std::map<std::string, std::string>& m) {
  w.begin_object();
  for (const auto& [k, v] : m) w.key(k).string(v);
  w.end_object();
}

inline void write_version(json::Writer& w, const DataVersion& v) {
  w.begin_object();
  if (v.covers_schema) w.key("covers_schema").boolean(true);  // absent: false (older documents)
  w.key("exactness").string(to_string(v.exactness));
  w.key("observed_at").string(v.observed_at);
  w.key("origin").string(v.origin);
  w.key("value").string(v.value);
  w.end_object();
}

inline void write_evidence(json::Writer& w, const Evidence& e) {
  w.begin_object();
  w.key("exactness").string(to_string(e.exactness));
  w.key("kind").string(e.kind);
  w.key("origin").string(e.origin);
  w.key("subject").string(e.subject);
  w.key("value").string(e.value);
  w.end_object();
}

inline void write_test_record(json::Writer& w, const TestRecord& t) {
  w.begin_object();
  w.key("at").string(t.at);
  w.key("checks_digest").string(t.checks_digest);
  w.key("run_id").string(t.run_id);
  w.end_object();
}

}  // namespace ods::planner::internal
