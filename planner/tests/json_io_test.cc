// JSON documents: snapshots (schema-versioned, corrupt vs newer), project inputs, plans.
#include "ods/planner/json_io.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "ods/base/sha256.h"
#include "ods/planner/planner.h"

using namespace ods::planner;
using nlohmann::json;
using ods::sha256_hex;

namespace {

StateSnapshot full_snapshot() {
  StateSnapshot s;
  s.project = "shop";
  s.environment = "dev";
  s.target_identity = "duckdb/shop/main";
  s.run_id = "run-2";
  s.run_started_at = "2026-11-29T11:00:00Z";
  NodeState stg;
  stg.fingerprint.add("scheme", "dbt/2");
  stg.fingerprint.add("sql", "select 1");
  stg.raw_digest = sha256_hex("raw");
  stg.built_at = "2026-11-29T11:00:00Z";
  stg.run_id = "run-2";
  stg.source_versions["source.shop.raw.orders"] =
      DataVersion{"2026-11-29T09:00:00", Exactness::semantic, "sources_json", "2026-11-29T10:30:00Z"};
  stg.content = DataVersion{"rows=3;hash=42;schema=0123456789abcdef0123456789abcdef", Exactness::exact,
                            "duckdb_content", "2026-11-29T11:01:00Z", true};
  s.nodes["model.shop.stg_orders"] = stg;
  NodeState fct;
  fct.parent_contents["model.shop.stg_orders"] =
      DataVersion{"rows=2;hash=41", Exactness::exact, "duckdb_content", "2026-11-29T10:01:00Z"};
  fct.fingerprint.add("sql", "select * from stg");
  fct.built_at = "2026-11-29T10:00:00Z";
  fct.run_id = "run-1";
  fct.parent_runs["model.shop.stg_orders"] = "run-1";
  fct.tested = TestRecord{"run-1", "2026-11-29T10:00:00Z", "checks-1"};
  s.nodes["model.shop.fct_orders"] = fct;
  SourceState tested;
  tested.tested = TestRecord{"run-2", "2026-11-29T11:00:00Z", "src-checks"};
  tested.version = DataVersion{"v9", Exactness::exact, "delta_history", "2026-11-29T10:59:00Z"};
  s.sources["source.shop.raw.orders"] = tested;
  SourceState unmeasured;
  unmeasured.tested = TestRecord{"run-2", "2026-11-29T11:00:00Z", "src-checks-2"};
  s.sources["source.shop.raw.customers"] = unmeasured;
  return s;
}

TEST(SnapshotJson, RoundTripIsEqual) {
  StateSnapshot s = full_snapshot();
  std::string text = to_json(s);
  auto back = snapshot_from_json(text);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(to_json(*back), text);
  EXPECT_EQ(back->schema.to_string(), kSnapshotSchema.to_string());
  EXPECT_EQ(back->project, "shop");
  EXPECT_EQ(back->environment, "dev");
  EXPECT_EQ(back->target_identity, "duckdb/shop/main");
  EXPECT_EQ(back->run_id, "run-2");
  EXPECT_EQ(back->run_started_at, "2026-11-29T11:00:00Z");
  ASSERT_EQ(back->nodes.size(), 2u);
  const NodeState& stg = back->nodes.at("model.shop.stg_orders");
  ASSERT_TRUE(stg.content.has_value());
  EXPECT_EQ(stg.content->value, "rows=3;hash=42;schema=0123456789abcdef0123456789abcdef");
  EXPECT_TRUE(stg.content->covers_schema);  // written only when set, read back
  EXPECT_NE(text.find("\"covers_schema\":true"), std::string::npos);
  EXPECT_FALSE(back->nodes.at("model.shop.fct_orders").parent_contents.begin()->second.covers_schema);
  EXPECT_EQ(stg.content->observed_at, "2026-11-29T11:01:00Z");
  EXPECT_TRUE(stg.parent_contents.empty());
  EXPECT_EQ(back->nodes.at("model.shop.fct_orders").parent_contents.at("model.shop.stg_orders").value,
            "rows=2;hash=41");
  EXPECT_FALSE(back->nodes.at("model.shop.fct_orders").content.has_value());
  EXPECT_EQ(stg.fingerprint, s.nodes.at("model.shop.stg_orders").fingerprint);
  EXPECT_EQ(stg.raw_digest, sha256_hex("raw"));
  const DataVersion& v = stg.source_versions.at("source.shop.raw.orders");
  EXPECT_EQ(v, s.nodes.at("model.shop.stg_orders").source_versions.at("source.shop.raw.orders"));
  EXPECT_EQ(v.observed_at, "2026-11-29T10:30:00Z");
  EXPECT_FALSE(stg.tested.has_value());
  const NodeState& fct = back->nodes.at("model.shop.fct_orders");
  EXPECT_EQ(fct.parent_runs, (std::map<std::string, std::string>{{"model.shop.stg_orders", "run-1"}}));
  ASSERT_TRUE(fct.tested.has_value());
  EXPECT_EQ(fct.tested->run_id, "run-1");
  EXPECT_EQ(fct.tested->at, "2026-11-29T10:00:00Z");
  EXPECT_EQ(fct.tested->checks_digest, "checks-1");
  ASSERT_EQ(back->sources.size(), 2u);
  EXPECT_EQ(back->sources.at("source.shop.raw.orders").version->exactness, Exactness::exact);
  EXPECT_EQ(back->sources.at("source.shop.raw.orders").tested->checks_digest, "src-checks");
  EXPECT_FALSE(back->sources.at("source.shop.raw.customers").version.has_value());
}

TEST(SnapshotJson, IsCanonicalAndOmitsEmptySources) {
  StateSnapshot s = full_snapshot();
  json doc = json::parse(to_json(s));
  EXPECT_EQ(doc.at("schema_version"), kSnapshotSchema.to_string());
  EXPECT_EQ(to_json(s).find('\n'), std::string::npos);  // compact
  // Keys sorted: the dump of a parsed copy is the same text.
  EXPECT_EQ(json::parse(to_json(s)).dump(), to_json(s));
  s.sources.clear();
  EXPECT_FALSE(json::parse(to_json(s)).contains("sources"));
}

json snapshot_doc() { return json::parse(to_json(full_snapshot())); }

TEST(SnapshotJson, ASnapshotBeforeEarlyCutoffReadsWithContentUnknown) {
  json doc = snapshot_doc();
  doc["schema_version"] = "1.2";
  for (auto& [id, node] : doc["nodes"].items()) {
    node.erase("content");
    node.erase("parent_contents");
  }
  auto r = snapshot_from_json(doc.dump());
  ASSERT_TRUE(r) << r.error().message;
  for (const auto& [id, node] : r->nodes) {
    EXPECT_FALSE(node.content.has_value()) << id;
    EXPECT_TRUE(node.parent_contents.empty()) << id;
  }
}

TEST(SnapshotJson, NewerSchemaIsRefused) {
  for (const char* version : {"2.0", "1.9", "1.6"}) {
    json doc = snapshot_doc();
    doc["schema_version"] = version;
    auto r = snapshot_from_json(doc.dump());
    ASSERT_FALSE(r) << version;
    EXPECT_EQ(r.error().code, "newer_schema") << version;
    EXPECT_NE(r.error().message.find(version), std::string::npos) << r.error().message;
  }
}

TEST(SnapshotJson, NewerSchemaIsRefusedBeforeItsShapeIsRead) {
  // A future document may have a different shape: that is newer, not corrupt.
  auto r = snapshot_from_json(R"({"schema_version": "2.0", "everything": "different"})");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, "newer_schema");
}

TEST(SnapshotJson, ReadsOlderMinorVersions) {
  // 1.0: no target identity, no sources, nodes without parent_runs / source_versions / tested.
  const char* v10 = R"({
    "schema_version": "1.0", "project": "shop", "environment": "default",
    "run_id": "run-1", "run_started_at": "2026-11-29T10:00:00Z",
    "nodes": {"model.shop.a": {"fingerprint": {"sql": "abc"}, "built_at": "2026-11-29T10:00:00Z", "run_id": "run-1"}}
  })";
  auto s = snapshot_from_json(v10);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->schema.to_string(), kSnapshotSchema.to_string());  // read into the current shape
  EXPECT_EQ(s->target_identity, "");
  EXPECT_TRUE(s->sources.empty());
  ASSERT_TRUE(s->nodes.contains("model.shop.a"));
  EXPECT_EQ(s->nodes.at("model.shop.a").fingerprint.components.at("sql"), "abc");
  EXPECT_TRUE(s->nodes.at("model.shop.a").parent_runs.empty());
  EXPECT_FALSE(s->nodes.at("model.shop.a").tested.has_value());

  json v11 = snapshot_doc();
  v11["schema_version"] = "1.1";
  v11.erase("sources");
  auto s11 = snapshot_from_json(v11.dump());
  ASSERT_TRUE(s11) << s11.error().message;
  EXPECT_EQ(s11->target_identity, "duckdb/shop/main");
}

void expect_corrupt(const std::string& text, const std::string& mentions) {
  auto r = snapshot_from_json(text);
  ASSERT_FALSE(r) << "expected corrupt: " << text;
  EXPECT_EQ(r.error().code, "corrupt") << r.error().message;
  EXPECT_NE(r.error().message.find(mentions), std::string::npos) << r.error().message;
}

TEST(SnapshotJson, DamagedDocumentsAreCorruptNamingTheField) {
  expect_corrupt("{not json", "not valid JSON");
  expect_corrupt("", "not valid JSON");
  expect_corrupt("[1, 2]", "snapshot");
  {
    json d = snapshot_doc();
    d.erase("schema_version");
    expect_corrupt(d.dump(), "snapshot.schema_version");
  }
  {
    json d = snapshot_doc();
    d["schema_version"] = "one";
    expect_corrupt(d.dump(), "schema_version");
  }
  {
    json d = snapshot_doc();
    d["schema_version"] = "1.2x";
    expect_corrupt(d.dump(), "schema_version");
  }
  {
    json d = snapshot_doc();
    d.erase("nodes");
    expect_corrupt(d.dump(), "snapshot.nodes");
  }
  {
    json d = snapshot_doc();
    d["run_id"] = 7;
    expect_corrupt(d.dump(), "snapshot.run_id");
  }
  {
    json d = snapshot_doc();
    d["nodes"]["model.shop.fct_orders"].erase("built_at");
    expect_corrupt(d.dump(), "snapshot.nodes.model.shop.fct_orders.built_at");
  }
  {
    json d = snapshot_doc();
    d["nodes"]["model.shop.fct_orders"]["fingerprint"]["sql"] = 12;
    expect_corrupt(d.dump(), "snapshot.nodes.model.shop.fct_orders.fingerprint.sql");
  }
  {
    json d = snapshot_doc();
    d["nodes"]["model.shop.fct_orders"]["parent_runs"]["model.shop.stg_orders"] = nullptr;
    expect_corrupt(d.dump(), "snapshot.nodes.model.shop.fct_orders.parent_runs.model.shop.stg_orders");
  }
  {
    json d = snapshot_doc();
    d["nodes"]["model.shop.stg_orders"]["source_versions"]["source.shop.raw.orders"]["exactness"] = "certain";
    expect_corrupt(d.dump(), "snapshot.nodes.model.shop.stg_orders.source_versions.source.shop.raw.orders.exactness");
  }
  {
    json d = snapshot_doc();
    d["nodes"]["model.shop.fct_orders"]["tested"].erase("run_id");
    expect_corrupt(d.dump(), "snapshot.nodes.model.shop.fct_orders.tested.run_id");
  }
  {
    json d = snapshot_doc();
    d["sources"]["source.shop.raw.orders"]["version"].erase("value");
    expect_corrupt(d.dump(), "snapshot.sources.source.shop.raw.orders.version.value");
  }
}

// ---- project inputs

ProjectInputs full_inputs() {
  ProjectInputs in;
  in.project = "shop";
  in.target = "dev";
  in.target_identity = "duckdb/shop/main";
  in.invocation_id = "inv-1";
  in.generated_at = "2026-11-29T09:00:00Z";
  in.warnings = {"model.shop.x is ephemeral and inlined"};
  NodeInput seed;
  seed.id = "seed.shop.codes";
  seed.name = "codes";
  seed.resource_type = "seed";
  seed.relation = "\"shop\".\"main\".\"codes\"";
  seed.fingerprint.add("file", "a,b");
  seed.self_contained = true;
  NodeInput m;
  m.id = "model.shop.stg_orders";
  m.name = "stg_orders";
  m.resource_type = "model";
  m.relation = "\"shop\".\"main\".\"stg_orders\"";
  m.parents = {"seed.shop.codes", "source.shop.raw.orders"};
  m.fingerprint.add("sql", "select 1");
  m.fingerprint.add("config", "{}");
  m.raw_digest = sha256_hex("select  1");
  m.sql_normalised = true;
  m.incomplete = {"no compiled SQL: run dbt compile"};
  m.always_build = {"pre-hook 1 reads env_var"};
  m.checks_digest = "checks";
  m.policy.lag_tolerance_seconds = 3600;
  m.policy.require_fresh_data_from_all = true;
  NodeInput bad_policy;
  bad_policy.id = "model.shop.p";
  bad_policy.name = "p";
  bad_policy.resource_type = "model";
  bad_policy.policy.error = "lag_tolerance 'soon' is not a duration";
  in.nodes = {seed, m, bad_policy};
  SourceInput src;
  src.id = "source.shop.raw.orders";
  src.name = "raw.orders";
  src.relation = "\"raw\".\"orders\"";
  src.version = DataVersion{"2026-11-29T08:00:00", Exactness::semantic, "sources_json", "2026-11-29T09:00:00Z",
                            true};  // covers_schema: round-trips through the inputs document too
  src.evidence = {{"source_data_version", src.id, "2026-11-29T08:00:00", Exactness::semantic, "sources.json"},
                  {"delta_version", src.id, "", Exactness::none, "not a Delta table"}};
  src.checks_digest = "src-checks";
  SourceInput unknown;
  unknown.id = "source.shop.raw.customers";
  unknown.name = "raw.customers";
  in.sources = {src, unknown};
  return in;
}

TEST(InputsJson, RoundTrip) {
  ProjectInputs in = full_inputs();
  in.nodes[1].build_replaces_relation = true;  // the pod's inputs carry what the planner needs
  in.nodes[1].dropped_when_parent_replaced = true;
  std::string text = to_json(in);
  auto back = inputs_from_json(text);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(to_json(*back), text);
  EXPECT_EQ(back->scheme, std::string(kFingerprintScheme));
  EXPECT_EQ(back->project, "shop");
  EXPECT_EQ(back->target, "dev");
  EXPECT_EQ(back->target_identity, "duckdb/shop/main");
  EXPECT_EQ(back->invocation_id, "inv-1");
  EXPECT_EQ(back->generated_at, "2026-11-29T09:00:00Z");
  EXPECT_EQ(back->warnings, in.warnings);
  ASSERT_EQ(back->nodes.size(), 3u);
  EXPECT_TRUE(back->nodes[0].self_contained);
  const NodeInput& m = back->nodes[1];
  EXPECT_EQ(m.relation, in.nodes[1].relation);
  EXPECT_EQ(m.parents, in.nodes[1].parents);
  EXPECT_EQ(m.fingerprint, in.nodes[1].fingerprint);
  EXPECT_EQ(m.raw_digest, in.nodes[1].raw_digest);
  EXPECT_TRUE(m.sql_normalised);
  EXPECT_EQ(m.incomplete, in.nodes[1].incomplete);
  EXPECT_EQ(m.always_build, in.nodes[1].always_build);
  EXPECT_FALSE(m.self_contained);
  EXPECT_TRUE(m.build_replaces_relation);
  EXPECT_TRUE(m.dropped_when_parent_replaced);
  EXPECT_FALSE(back->nodes[0].build_replaces_relation);
  EXPECT_FALSE(back->nodes[0].dropped_when_parent_replaced);
  EXPECT_EQ(m.checks_digest, "checks");
  EXPECT_EQ(m.policy.lag_tolerance_seconds, 3600);
  EXPECT_TRUE(m.policy.require_fresh_data_from_all);
  EXPECT_TRUE(m.policy.allows_reuse());
  EXPECT_FALSE(back->nodes[2].policy.allows_reuse());
  EXPECT_EQ(back->nodes[2].policy.error, in.nodes[2].policy.error);
  EXPECT_FALSE(back->nodes[2].policy.lag_tolerance_seconds.has_value());
  ASSERT_EQ(back->sources.size(), 2u);
  const SourceInput& s = back->sources[0];
  ASSERT_TRUE(s.version.has_value());
  EXPECT_EQ(*s.version, *in.sources[0].version);
  EXPECT_TRUE(s.version->covers_schema);
  EXPECT_EQ(s.version->observed_at, "2026-11-29T09:00:00Z");
  ASSERT_EQ(s.evidence.size(), 2u);
  EXPECT_EQ(s.evidence[1].kind, "delta_version");
  EXPECT_EQ(s.evidence[1].exactness, Exactness::none);
  EXPECT_EQ(s.evidence[1].origin, "not a Delta table");
  EXPECT_EQ(s.checks_digest, "src-checks");
  EXPECT_FALSE(back->sources[1].version.has_value());
}

TEST(InputsJson, OptionalFieldsMayBeOmitted) {
  auto in = inputs_from_json(R"({"scheme": "dbt/2", "project": "shop", "sources": [],
    "nodes": [{"id": "model.shop.a", "name": "a", "resource_type": "model", "fingerprint": {"sql": "x"}}]})");
  ASSERT_TRUE(in) << in.error().message;
  ASSERT_EQ(in->nodes.size(), 1u);
  EXPECT_TRUE(in->nodes[0].parents.empty());
  EXPECT_FALSE(in->nodes[0].self_contained);
  EXPECT_TRUE(in->nodes[0].policy.allows_reuse());
  EXPECT_FALSE(in->nodes[0].policy.require_fresh_data_from_all);
  EXPECT_EQ(in->target, "");
}

void expect_invalid(const json& doc, const std::string& mentions) {
  auto r = inputs_from_json(doc.dump());
  ASSERT_FALSE(r) << "expected invalid: " << doc.dump();
  EXPECT_EQ(r.error().code, "invalid_inputs") << r.error().message;
  EXPECT_NE(r.error().message.find(mentions), std::string::npos) << r.error().message;
}

json inputs_doc() { return json::parse(to_json(full_inputs())); }

TEST(InputsJson, MalformedInputsNameTheField) {
  {
    auto r = inputs_from_json("{\"scheme\": ");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, "invalid_inputs");
  }
  expect_invalid(json::array(), "inputs");
  {
    json d = inputs_doc();
    d.erase("project");
    expect_invalid(d, "inputs.project");
  }
  {
    json d = inputs_doc();
    d["nodes"] = json::object();
    expect_invalid(d, "inputs.nodes");
  }
  {
    json d = inputs_doc();
    d["nodes"][1].erase("name");
    expect_invalid(d, "inputs.nodes[model.shop.stg_orders].name");
  }
  {
    json d = inputs_doc();
    d["nodes"][1]["parents"] = json::array({"seed.shop.codes", 3});
    expect_invalid(d, "inputs.nodes[model.shop.stg_orders].parents");
  }
  {
    json d = inputs_doc();
    d["nodes"][1]["fingerprint"]["sql"] = json::array();
    expect_invalid(d, "inputs.nodes[model.shop.stg_orders].fingerprint.sql");
  }
  {
    json d = inputs_doc();
    d["nodes"][1]["policy"]["lag_tolerance_seconds"] = "1h";
    expect_invalid(d, "inputs.nodes[model.shop.stg_orders].policy.lag_tolerance_seconds");
  }
  {
    json d = inputs_doc();
    d["nodes"][1]["policy"]["require_fresh_data_from"] = 1;
    expect_invalid(d, "inputs.nodes[model.shop.stg_orders].policy.require_fresh_data_from");
  }
  {
    json d = inputs_doc();
    d["nodes"][0]["self_contained"] = "yes";
    expect_invalid(d, "inputs.nodes[seed.shop.codes].self_contained");
  }
  {
    json d = inputs_doc();
    d["nodes"][1]["sql_normalised"] = 1;
    expect_invalid(d, "inputs.nodes[model.shop.stg_orders].sql_normalised");
  }
  {
    json d = inputs_doc();
    d["sources"][0]["version"]["exactness"] = "roughly";
    expect_invalid(d, "inputs.sources[source.shop.raw.orders].version.exactness");
  }
  {
    json d = inputs_doc();
    d["sources"][0]["evidence"][0].erase("kind");
    expect_invalid(d, "inputs.sources[source.shop.raw.orders].evidence.kind");
  }
  {
    json d = inputs_doc();
    d["warnings"] = "just one";
    expect_invalid(d, "inputs.warnings");
  }
}

// ---- plans

TEST(PlanJson, HasTheDocumentedShape) {
  // stg_orders is reused; fct_orders is new. The source was observed before the build: warning.
  ProjectInputs in;
  in.project = "shop";
  in.target = "dev";
  NodeInput stg;
  stg.id = "model.shop.stg_orders";
  stg.name = "stg_orders";
  stg.resource_type = "model";
  stg.parents = {"seed.shop.codes"};
  stg.fingerprint.add("sql", "1");
  NodeInput seed;
  seed.id = "seed.shop.codes";
  seed.name = "codes";
  seed.resource_type = "seed";
  seed.self_contained = true;
  seed.fingerprint.add("file", "1");
  NodeInput fct;
  fct.id = "model.shop.fct_orders";
  fct.name = "fct_orders";
  fct.resource_type = "model";
  fct.parents = {"source.shop.raw.orders"};
  fct.fingerprint.add("sql", "2");
  SourceInput src;
  src.id = "source.shop.raw.orders";
  src.name = "raw.orders";
  src.version = DataVersion{"v1", Exactness::semantic, "sources_json", "2026-11-29T09:00:00Z"};
  in.nodes = {stg, seed, fct};
  in.sources = {src};
  StateSnapshot prev;
  prev.project = "shop";
  prev.environment = "dev";
  prev.run_id = "run-1";
  prev.run_started_at = "2026-11-29T10:00:00Z";
  for (const NodeInput* n : {&stg, &seed, &fct}) {
    NodeState st;
    st.fingerprint = n->fingerprint;
    st.run_id = "run-1";
    st.built_at = "2026-11-29T10:00:00Z";
    prev.nodes[n->id] = st;
  }
  prev.nodes[stg.id].parent_runs[seed.id] = "run-1";
  prev.nodes[fct.id].source_versions[src.id] = *src.version;
  auto p = plan(in, &prev, PlanOptions{std::nullopt, "2026-11-29T12:00:00Z", {}});
  ASSERT_TRUE(p) << p.error().message;

  std::string compact = to_json(*p, false);
  EXPECT_EQ(compact.find('\n'), std::string::npos);
  EXPECT_NE(to_json(*p, true).find('\n'), std::string::npos);
  EXPECT_EQ(json::parse(to_json(*p, true)), json::parse(compact));

  json doc = json::parse(compact);
  for (const char* key : {"scope", "entries", "select", "warnings", "summary"}) EXPECT_TRUE(doc.contains(key)) << key;
  EXPECT_EQ(doc["scope"], "shop/dev");
  EXPECT_EQ(doc["select"], "fct_orders");
  EXPECT_EQ(doc["summary"], (json{{"build", 1}, {"reuse", 2}}));
  ASSERT_EQ(doc["warnings"].size(), 1u);
  EXPECT_NE(doc["warnings"][0].get<std::string>().find("sources.json is older than the last build"), std::string::npos);

  ASSERT_EQ(doc["entries"].size(), 3u);
  std::vector<std::string> ids;
  for (const auto& e : doc["entries"]) {
    for (const char* key : {"id", "name", "resource_type", "action", "depth", "reasons", "evidence"})
      EXPECT_TRUE(e.contains(key)) << key;
    ASSERT_FALSE(e["reasons"].empty());
    for (const auto& r : e["reasons"]) {
      EXPECT_TRUE(r.contains("code"));
      EXPECT_TRUE(r.contains("message"));
    }
    for (const auto& ev : e["evidence"])
      for (const char* key : {"kind", "subject", "value", "exactness", "origin"}) EXPECT_TRUE(ev.contains(key)) << key;
    ids.push_back(e["id"]);
  }
  EXPECT_EQ(ids, (std::vector<std::string>{"model.shop.fct_orders", "seed.shop.codes", "model.shop.stg_orders"}));
  const json& fct_entry = doc["entries"][0];
  EXPECT_EQ(fct_entry["action"], "build");
  EXPECT_EQ(fct_entry["depth"], 0);
  EXPECT_EQ(fct_entry["reasons"][0]["code"], "missing_data_evidence");
  const json& stg_entry = doc["entries"][2];
  EXPECT_EQ(stg_entry["action"], "reuse");
  EXPECT_EQ(stg_entry["depth"], 1);
  EXPECT_EQ(stg_entry["resource_type"], "model");
  EXPECT_EQ(stg_entry["name"], "stg_orders");
  // Every REUSE says whether the relation's existence was checked (here: not, exactness none).
  bool relation_evidence = false;
  for (const auto& ev : stg_entry["evidence"])
    relation_evidence |= ev["kind"] == "relation_exists" && ev["exactness"] == "none";
  EXPECT_TRUE(relation_evidence) << stg_entry.dump();
}

}  // namespace
