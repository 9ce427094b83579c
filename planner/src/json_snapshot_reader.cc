// Snapshot documents from JSON, streamed (no DOM): schema 1.3, and 1.0 to 1.2 read.
//
// One pass reads the document into a StateSnapshot. Shape errors ("corrupt", naming the
// field) are only reported when the document's schema_version is one this binary reads: a
// newer document may have another shape, so on a shape error a second, skimming pass looks
// for schema_version first.
#include <charconv>
#include <optional>

#include "ods/json/fields.h"
#include "ods/json/reader.h"
#include "ods/planner/json_io.h"

namespace ods::planner {

namespace {

using ods::json::FieldError;

SchemaVersion parse_schema(std::string_view text) {
  SchemaVersion v{0, 0};
  auto dot = text.find('.');
  auto bad = [&] { return FieldError("schema_version", "'" + std::string(text) + "' is not MAJOR.MINOR"); };
  if (dot == std::string::npos) throw bad();
  auto a = std::from_chars(text.data(), text.data() + dot, v.major);
  auto b = std::from_chars(text.data() + dot + 1, text.data() + text.size(), v.minor);
  if (a.ec != std::errc() || b.ec != std::errc() || b.ptr != text.data() + text.size()) throw bad();
  return v;
}

// Typed reads of the value the reader is at, naming its path ("snapshot.nodes.<id>.run_id")
// when the type is wrong.
class SnapshotReader {
 public:
  explicit SnapshotReader(std::string_view text) : r_(text) {}

  StateSnapshot read() {
    StateSnapshot s;
    begin_object();
    bool has_schema = false, has_project = false, has_environment = false, has_run_id = false, has_started = false,
         has_nodes = false;
    std::string_view key;
    while (r_.next_member(key)) {
      if (key == "schema_version") {
        s.schema = parse_schema(string());
        has_schema = true;
      } else if (key == "project") {
        s.project = string();
        has_project = true;
      } else if (key == "environment") {
        s.environment = string();
        has_environment = true;
      } else if (key == "target_identity") {
        s.target_identity = opt_string();  // absent before 1.1
      } else if (key == "run_id") {
        s.run_id = string();
        has_run_id = true;
      } else if (key == "run_started_at") {
        s.run_started_at = string();
        has_started = true;
      } else if (key == "nodes") {
        read_nodes(s);
        has_nodes = true;
      } else if (key == "sources") {  // absent before 1.2
        read_sources(s);
      } else {
        r_.skip();
      }
    }
    r_.finish();
    require(has_schema, "snapshot", "schema_version");
    require(has_project, "snapshot", "project");
    require(has_environment, "snapshot", "environment");
    require(has_run_id, "snapshot", "run_id");
    require(has_started, "snapshot", "run_started_at");
    require(has_nodes, "snapshot", "nodes");
    return s;
  }

 private:
  std::string where() const {
    std::string path = r_.path();
    return path.empty() ? "snapshot" : "snapshot." + path;
  }
  [[noreturn]] void wrong(const char* expected) const {
    throw FieldError(where(), std::string("expected ") + expected);
  }
  static void require(bool present, const std::string& path, const char* key) {
    if (!present) throw FieldError::missing(path + "." + key);
  }

  void begin_object() {
    if (r_.peek() != json::Type::object) wrong("an object");
    r_.begin_object();
  }
  std::string_view string_view() {
    if (r_.peek() != json::Type::string) wrong("a string");
    return r_.string_view();
  }
  std::string string() { return std::string(string_view()); }
  std::string opt_string() {  // null reads as ""
    if (r_.peek() == json::Type::null) {
      r_.null();
      return {};
    }
    return string();
  }

  // An object of strings: name -> value.
  void read_string_map(std::map<std::string, std::string>& out) {
    out.clear();  // a repeated member replaces the earlier one, as in a DOM
    begin_object();
    std::string_view key;
    while (r_.next_member(key)) out.insert_or_assign(out.end(), std::string(key), string());
  }

  DataVersion read_version() {
    DataVersion v;
    bool has_value = false, has_exactness = false, has_origin = false;
    begin_object();
    std::string_view key;
    while (r_.next_member(key)) {
      if (key == "value") {
        v.value = string();
        has_value = true;
      } else if (key == "exactness") {
        const std::string_view word = string_view();
        auto e = exactness_from_string(word);
        if (!e) throw FieldError(where(), "unknown exactness '" + std::string(word) + "'");
        v.exactness = *e;
        has_exactness = true;
      } else if (key == "origin") {
        v.origin = string();
        has_origin = true;
      } else if (key == "observed_at") {
        v.observed_at = opt_string();
      } else if (key == "covers_schema") {
        v.covers_schema = r_.boolean();
      } else {
        r_.skip();
      }
    }
    require_members({{has_value, "value"}, {has_exactness, "exactness"}, {has_origin, "origin"}});
    return v;
  }

  TestRecord read_test_record() {
    TestRecord t;
    bool has_run = false, has_at = false;
    begin_object();
    std::string_view key;
    while (r_.next_member(key)) {
      if (key == "run_id") {
        t.run_id = string();
        has_run = true;
      } else if (key == "at") {
        t.at = string();
        has_at = true;
      } else if (key == "checks_digest") {
        t.checks_digest = opt_string();
      } else {
        r_.skip();
      }
    }
    require_members({{has_run, "run_id"}, {has_at, "at"}});
    return t;
  }

  // After an object was read: a "missing" error naming its first absent required member.
  void require_members(std::initializer_list<std::pair<bool, const char*>> required) const {
    for (const auto& [present, name] : required) {
      if (!present) throw FieldError::missing(where() + "." + name);
    }
  }

  void read_node(NodeState& n) {
    bool has_fingerprint = false, has_built = false, has_run = false;
    begin_object();
    std::string_view key;
    while (r_.next_member(key)) {
      if (key == "fingerprint") {
        read_string_map(n.fingerprint.components);
        has_fingerprint = true;
      } else if (key == "raw_digest") {
        n.raw_digest = opt_string();
      } else if (key == "compile_key") {
        n.compile_key = opt_string();
      } else if (key == "relation_identity") {
        n.relation_identity = opt_string();
      } else if (key == "built_at") {
        n.built_at = string();
        has_built = true;
      } else if (key == "run_id") {
        n.run_id = string();
        has_run = true;
      } else if (key == "parent_runs") {
        read_string_map(n.parent_runs);
      } else if (key == "content") {
        n.content = read_version();
      } else if (key == "parent_contents") {
        n.parent_contents.clear();
        begin_object();
        std::string_view id;
        while (r_.next_member(id))
          n.parent_contents.insert_or_assign(n.parent_contents.end(), std::string(id), read_version());
      } else if (key == "source_versions") {
        n.source_versions.clear();
        begin_object();
        std::string_view id;
        while (r_.next_member(id))
          n.source_versions.insert_or_assign(n.source_versions.end(), std::string(id), read_version());
      } else if (key == "tested") {
        if (r_.peek() == json::Type::null) {
          r_.null();
          n.tested.reset();
        } else {
          n.tested = read_test_record();
        }
      } else {
        r_.skip();
      }
    }
    require_members({{has_fingerprint, "fingerprint"}, {has_built, "built_at"}, {has_run, "run_id"}});
  }

  void read_nodes(StateSnapshot& s) {
    s.nodes.clear();
    begin_object();
    std::string_view id;
    while (r_.next_member(id)) {
      // Written in key order: the hint makes each insertion constant time.
      auto it = s.nodes.insert_or_assign(s.nodes.end(), std::string(id), NodeState{});
      read_node(it->second);
    }
  }

  void read_sources(StateSnapshot& s) {
    s.sources.clear();
    begin_object();
    std::string_view id;
    while (r_.next_member(id)) {
      SourceState st;
      begin_object();
      std::string_view key;
      while (r_.next_member(key)) {
        if (key == "tested") {
          st.tested = read_test_record();
        } else if (key == "version") {
          st.version = read_version();
        } else {
          r_.skip();
        }
      }
      s.sources.insert_or_assign(s.sources.end(), std::string(id), std::move(st));
    }
  }

  json::Reader r_;
};

// The top-level schema_version of a document that is valid JSON, without reading its shape.
// nullopt when absent or not a string. Throws json::SyntaxError.
std::optional<std::string> skim_schema_version(std::string_view text) {
  json::Reader r(text);
  if (r.peek() != json::Type::object) {
    r.skip();
    r.finish();
    return std::nullopt;
  }
  std::optional<std::string> found;
  r.begin_object();
  std::string_view key;
  while (r.next_member(key)) {
    if (key == "schema_version" && r.peek() == json::Type::string) {
      found = r.string();
    } else {
      r.skip();
    }
  }
  r.finish();
  return found;
}

Error newer_schema(const SchemaVersion& found) {
  return Error{"newer_schema", "the snapshot has schema " + found.to_string() + "; this ods reads " +
                                   std::to_string(kSnapshotSchema.major) + ".0 to " + kSnapshotSchema.to_string() +
                                   " (upgrade ods)"};
}

Error not_json(const json::SyntaxError& e) {
  return Error{"corrupt", "the snapshot document is not valid JSON at byte " + std::to_string(e.offset()) +
                              (e.path().empty() ? "" : " (in snapshot." + e.path() + ")") + ": " + e.problem()};
}

}  // namespace

Result<StateSnapshot> snapshot_from_json(std::string_view text) {
  try {
    StateSnapshot s = SnapshotReader(text).read();
    if (!kSnapshotSchema.can_read(s.schema)) return std::unexpected(newer_schema(s.schema));
    s.schema = kSnapshotSchema;  // read into the current shape
    return s;
  } catch (const json::SyntaxError& e) {
    return std::unexpected(not_json(e));
  } catch (const FieldError& shape) {
    // Newer documents may have another shape: that is newer, not corrupt. Malformed JSON
    // anywhere is reported as such first.
    try {
      if (auto version = skim_schema_version(text)) {
        SchemaVersion v = parse_schema(*version);
        if (!kSnapshotSchema.can_read(v)) return std::unexpected(newer_schema(v));
      }
    } catch (const json::SyntaxError& e) {
      return std::unexpected(not_json(e));
    } catch (const FieldError&) {  // NOLINT(bugprone-empty-catch): the shape error below is reported
    }
    return fail("corrupt", std::string("the snapshot document is damaged: ") + shape.what());
  }
}

}  // namespace ods::planner
