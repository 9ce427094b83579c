// The streamed snapshot reader/writer and plan writer: byte for byte the documents the
// nlohmann DOM versions wrote (the oracle below is that code), and malformed snapshots
// refused saying where.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "ods/base/sha256.h"
#include "ods/planner/json_io.h"
#include "ods/planner/planner.h"

using namespace ods::planner;
using nlohmann::json;
using ods::sha256_hex;

namespace {

// ---- the oracle: how the DOM versions (before streaming) built these documents

json version_dom(const DataVersion& v) {
  return {
      {"value", v.value}, {"exactness", to_string(v.exactness)}, {"origin", v.origin}, {"observed_at", v.observed_at}};
}
json test_record_dom(const TestRecord& t) {
  return {{"run_id", t.run_id}, {"at", t.at}, {"checks_digest", t.checks_digest}};
}

std::string snapshot_dom_text(const StateSnapshot& s) {
  json nodes = json::object();
  for (const auto& [id, n] : s.nodes) {
    json j{{"fingerprint", n.fingerprint.components},
           {"raw_digest", n.raw_digest},
           {"built_at", n.built_at},
           {"run_id", n.run_id},
           {"parent_runs", n.parent_runs}};
    json versions = json::object();
    for (const auto& [sid, v] : n.source_versions) versions[sid] = version_dom(v);
    j["source_versions"] = versions;
    if (n.tested) j["tested"] = test_record_dom(*n.tested);
    nodes[id] = j;
  }
  json sources = json::object();
  for (const auto& [id, src] : s.sources) {
    json j = json::object();
    if (src.tested) j["tested"] = test_record_dom(*src.tested);
    if (src.version) j["version"] = version_dom(*src.version);
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

std::string plan_dom_text(const ExecutionPlan& plan, bool pretty) {
  json entries = json::array();
  for (const auto& e : plan.entries) {
    json reasons = json::array();
    for (const auto& r : e.reasons) reasons.push_back({{"code", r.code}, {"message", r.message}});
    json evidence = json::array();
    for (const auto& ev : e.evidence)
      evidence.push_back({{"kind", ev.kind},
                          {"subject", ev.subject},
                          {"value", ev.value},
                          {"exactness", to_string(ev.exactness)},
                          {"origin", ev.origin}});
    entries.push_back({{"id", e.id},
                       {"name", e.name},
                       {"resource_type", e.resource_type},
                       {"action", to_string(e.action)},
                       {"depth", e.depth},
                       {"reasons", reasons},
                       {"evidence", evidence}});
  }
  json doc{{"scope", plan.scope},
           {"entries", entries},
           {"select", plan.select},
           {"warnings", plan.warnings},
           {"summary", {{"build", plan.count(Action::build)}, {"reuse", plan.count(Action::reuse)}}}};
  return pretty ? doc.dump(2) : doc.dump();
}

// ---- documents with every field, and strings that need escaping

const std::string kTricky = "q\"b\\s/ \n\r\t\b\f \x01\x1f é€𝄞";

StateSnapshot tricky_snapshot() {
  StateSnapshot s;
  s.project = "shop" + kTricky;
  s.environment = "dev";
  s.target_identity = "duckdb/shop/main";
  s.run_id = "run-2";
  s.run_started_at = "2026-11-29T11:00:00Z";
  for (int i = 0; i < 30; ++i) {
    NodeState n;
    n.fingerprint.add("sql", "select " + std::to_string(i));
    n.fingerprint.add("config", "{}");
    n.fingerprint.components["weird " + kTricky] = kTricky;
    n.raw_digest = i % 3 == 0 ? "" : sha256_hex(std::to_string(i));
    n.built_at = "2026-11-29T10:00:00Z";
    n.run_id = "run-" + std::to_string(i % 2);
    if (i > 0) n.parent_runs["model.shop.m" + std::to_string(i - 1)] = "run-1";
    if (i % 4 == 0)
      n.source_versions["source.shop.raw." + kTricky] =
          DataVersion{"v" + kTricky, Exactness::semantic, "sources_json", i % 8 == 0 ? "" : "2026-11-29T09:00:00Z"};
    if (i % 5 == 0) n.tested = TestRecord{"run-1", "2026-11-29T10:00:00Z", i % 10 == 0 ? "" : "checks"};
    s.nodes["model.shop.m" + std::to_string(i)] = n;
  }
  s.nodes["model.shop." + kTricky] = NodeState{};
  SourceState both{TestRecord{"run-2", "2026-11-29T11:00:00Z", "c"},
                   DataVersion{"7", Exactness::exact, "delta_history", "2026-11-29T10:59:00Z"}};
  s.sources["source.shop.raw.a"] = both;
  s.sources["source.shop.raw.b"] = SourceState{std::nullopt, both.version};
  s.sources["source.shop.raw.c"] = SourceState{};
  return s;
}

ExecutionPlan tricky_plan() {
  ExecutionPlan p;
  p.scope = "shop/dev";
  for (int i = 0; i < 12; ++i) {
    PlanEntry e;
    e.id = "model.shop.m" + std::to_string(i);
    e.name = i == 3 ? kTricky : "m" + std::to_string(i);
    e.resource_type = "model";
    e.action = i % 3 == 0 ? Action::reuse : Action::build;
    e.depth = i / 4;
    if (i != 5) e.reasons.push_back(Reason{"unchanged", "nothing changed: " + kTricky});
    if (i % 2 == 0) e.reasons.push_back(Reason{"second", ""});
    if (i % 4 != 1)
      e.evidence.push_back(Evidence{"fingerprint", "sql", sha256_hex(e.id), Exactness::exact, "manifest.json"});
    if (i == 6) e.evidence.push_back(Evidence{"relation_exists", e.id, "", Exactness::none, ""});
    p.entries.push_back(e);
  }
  p.select = "m1 m2 " + kTricky;
  p.warnings = {"first", kTricky};
  return p;
}

TEST(StreamedJson, SnapshotIsByteForByteTheDomDocument) {
  StateSnapshot s = tricky_snapshot();
  EXPECT_EQ(to_json(s), snapshot_dom_text(s));
  s.sources.clear();  // "sources" left out when empty
  EXPECT_EQ(to_json(s), snapshot_dom_text(s));
  EXPECT_EQ(to_json(StateSnapshot{}), snapshot_dom_text(StateSnapshot{}));
}

TEST(StreamedJson, SnapshotRoundTrips) {
  const StateSnapshot s = tricky_snapshot();
  const std::string text = to_json(s);
  auto back = snapshot_from_json(text);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(to_json(*back), text);
  // Pretty-printed, members in another order, unknown members: read the same.
  json doc = json::parse(text);
  doc["a_future_member"] = {{"x", {1, 2, nullptr}}};
  doc["nodes"]["model.shop.m1"]["later"] = "ignored";
  nlohmann::ordered_json reordered;
  for (const char* key : {"sources", "nodes", "run_id", "schema_version", "a_future_member", "project", "environment",
                          "target_identity", "run_started_at"})
    reordered[key] = doc[key];
  for (const std::string& variant : {doc.dump(2), reordered.dump(), reordered.dump(4)}) {
    auto again = snapshot_from_json(variant);
    ASSERT_TRUE(again) << again.error().message;
    EXPECT_EQ(to_json(*again), text);
  }
}

TEST(StreamedJson, SnapshotReaderKeepsTheLastOfRepeatedMembers) {
  // As the DOM did: a repeated member replaces the earlier one (not merged with it).
  const char* text = R"({"schema_version": "1.2", "project": "a", "project": "shop", "environment": "dev",
    "run_id": "r", "run_started_at": "t", "nodes": {
      "model.x": {"fingerprint": {"sql": "1", "old": "2"}, "fingerprint": {"sql": "3"}, "built_at": "b", "run_id": "r"},
      "model.x": {"fingerprint": {"sql": "4"}, "built_at": "b2", "run_id": "r"}}})";
  auto s = snapshot_from_json(text);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->project, "shop");
  ASSERT_EQ(s->nodes.size(), 1u);
  EXPECT_EQ(s->nodes.at("model.x").fingerprint.components, (std::map<std::string, std::string>{{"sql", "4"}}));
  EXPECT_EQ(s->nodes.at("model.x").built_at, "b2");
}

void expect_error(std::string_view text, const std::string& code, const std::string& message) {
  auto r = snapshot_from_json(text);
  ASSERT_FALSE(r) << "accepted: " << text;
  EXPECT_EQ(r.error().code, code) << r.error().message;
  EXPECT_EQ(r.error().message, message);
}

TEST(StreamedJson, MalformedSnapshotsSayWhere) {
  const std::string good = to_json(tricky_snapshot());
  // Cut in the middle of a node: the byte and the member being read.
  const std::size_t cut = good.find("\"model.shop.m12\"") + 40;
  auto r = snapshot_from_json(good.substr(0, cut));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, "corrupt");
  EXPECT_NE(r.error().message.find("the snapshot document is not valid JSON at byte " + std::to_string(cut)),
            std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("(in snapshot.nodes.model.shop.m12."), std::string::npos) << r.error().message;

  expect_error(R"({"schema_version": "1.2", "nodes": {"model.a": {"fingerprint": {"sql": "x",}}}})", "corrupt",
               "the snapshot document is not valid JSON at byte 75 (in snapshot.nodes.model.a.fingerprint.sql): "
               "expected a member name");
  expect_error("{\"schema_version\": \"1.2\", \"project\": \"a\xff\"}", "corrupt",
               "the snapshot document is not valid JSON at byte 39 (in snapshot.project): invalid UTF-8 in a string");
  expect_error(R"({"schema_version": "1.2"} trailing)", "corrupt",
               "the snapshot document is not valid JSON at byte 26: unexpected data after the JSON value");
  // Malformed JSON is reported as such even when the shape is wrong first.
  expect_error(R"({"nodes": 7, "x": [1,]})", "corrupt",
               "the snapshot document is not valid JSON at byte 21 (in snapshot.x[1]): expected a value after ','");
  // Shape errors name the field.
  expect_error(R"({"schema_version": "1.2", "project": "a", "environment": "e", "run_id": "r",
    "run_started_at": "t", "nodes": {"model.a": {"fingerprint": {}, "built_at": "b"}}})",
               "corrupt", "the snapshot document is damaged: snapshot.nodes.model.a.run_id: missing");
  expect_error(R"({"schema_version": "1.2", "project": "a", "environment": "e", "run_id": "r",
    "run_started_at": "t", "nodes": {"model.a": {"fingerprint": {}, "built_at": "b", "run_id": "r", "tested": 1}}})",
               "corrupt", "the snapshot document is damaged: snapshot.nodes.model.a.tested: expected an object");
  // A newer schema with another shape is newer, wherever its schema_version is.
  auto newer = snapshot_from_json(R"({"nodes": [1, 2], "schema_version": "3.1"})");
  ASSERT_FALSE(newer);
  EXPECT_EQ(newer.error().code, "newer_schema");
}

TEST(StreamedJson, PlanIsByteForByteTheDomDocument) {
  const ExecutionPlan p = tricky_plan();
  EXPECT_EQ(to_json(p, true), plan_dom_text(p, true));
  EXPECT_EQ(to_json(p, false), plan_dom_text(p, false));
  std::ostringstream streamed;
  write_json(streamed, p, true);
  EXPECT_EQ(streamed.str(), plan_dom_text(p, true));
  const ExecutionPlan empty;
  EXPECT_EQ(to_json(empty, true), plan_dom_text(empty, true));
  EXPECT_EQ(to_json(empty, false), plan_dom_text(empty, false));
}

TEST(StreamedJson, PlanReadsBackToTheSameDocument) {
  ExecutionPlan p = tricky_plan();
  p.entries[5].reasons.push_back(Reason{"changed", "the SQL changed"});  // every decision says why
  for (const bool pretty : {true, false}) {
    auto read = plan_from_json(to_json(p, pretty));
    ASSERT_TRUE(read) << read.error().message;
    EXPECT_EQ(to_json(*read, true), to_json(p, true));
    EXPECT_EQ(read->count(Action::build), p.count(Action::build));
    EXPECT_EQ(read->entries[3].name, kTricky);
  }
  auto empty = plan_from_json(to_json(ExecutionPlan{}, false));
  ASSERT_TRUE(empty) << empty.error().message;
  EXPECT_TRUE(empty->entries.empty());
}

TEST(StreamedJson, MalformedPlansSayWhere) {
  ExecutionPlan p = tricky_plan();
  p.entries[5].reasons.push_back(Reason{"changed", "the SQL changed"});
  const json good = json::parse(to_json(p, false));
  const auto error_of = [](const std::string& text) {
    auto read = plan_from_json(text);
    EXPECT_FALSE(read) << text;
    if (read) return std::string();
    EXPECT_EQ(read.error().code, "corrupt");
    return read.error().message;
  };
  EXPECT_NE(error_of("{\"entries\": [").find("not a JSON document"), std::string::npos);
  json doc = good;
  doc.erase("scope");
  EXPECT_NE(error_of(doc.dump()).find("plan.scope: missing"), std::string::npos);
  doc = good;
  doc["entries"][2]["action"] = "skip";
  EXPECT_NE(error_of(doc.dump()).find("plan.entries[2].action: unknown action 'skip'"), std::string::npos);
  doc = good;
  doc["entries"][4]["reasons"] = json::array();
  EXPECT_NE(error_of(doc.dump()).find("plan.entries[4].reasons: empty"), std::string::npos);
  doc = good;
  doc["entries"][1]["depth"] = "1";
  EXPECT_NE(error_of(doc.dump()).find("plan.entries[1].depth: expected an integer"), std::string::npos);
  doc = good;
  doc["entries"][6]["evidence"][0]["exactness"] = "maybe";
  EXPECT_NE(error_of(doc.dump()).find("plan.entries[6].evidence[0].exactness"), std::string::npos);
  doc = good;
  doc["warnings"][1] = 7;
  EXPECT_NE(error_of(doc.dump()).find("plan.warnings[1]: expected a string"), std::string::npos);
  EXPECT_NE(error_of("[]").find("plan: expected an object"), std::string::npos);
}

}  // namespace
