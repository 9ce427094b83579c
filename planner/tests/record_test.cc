// record(): a finished run becomes the next snapshot (ADR-0013 "Snapshots", rule 5 of AGENTS.md;
// #220 tested builds; #232 tested sources; ADR-0017 target identity).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ods/base/sha256.h"
#include "ods/planner/checks.h"
#include "ods/planner/json_io.h"
#include "ods/planner/planner.h"

using namespace ods::planner;
using ods::sha256_hex;

namespace {

constexpr const char* kIdentity = "duckdb/shop/main";
const std::string kSeed = "seed.shop.codes";
const std::string kStg = "model.shop.stg_orders";
const std::string kFct = "model.shop.fct_orders";
const std::string kSrc = "source.shop.raw.orders";

DataVersion version(std::string value, std::string observed_at) {
  return DataVersion{std::move(value), Exactness::semantic, "sources_json", std::move(observed_at)};
}

NodeInput node(const std::string& id, const std::string& type, std::vector<std::string> parents) {
  NodeInput n;
  n.id = id;
  n.name = id.substr(id.rfind('.') + 1);
  n.resource_type = type;
  n.parents = std::move(parents);
  n.fingerprint.add("scheme", "dbt/2");
  n.fingerprint.add(type == "seed" ? "file" : "sql", "code of " + id);
  n.raw_digest = sha256_hex("raw " + id);
  n.self_contained = type == "seed";
  return n;
}

// codes (seed) and raw.orders (source) -> stg_orders -> fct_orders (also reads codes).
ProjectInputs project() {
  ProjectInputs in;
  in.project = "shop";
  in.target = "dev";
  in.target_identity = kIdentity;
  in.nodes = {node(kSeed, "seed", {}), node(kStg, "model", {kSrc}), node(kFct, "model", {kSeed, kStg})};
  in.nodes[2].checks_digest = "checks-fct-1";
  SourceInput src;
  src.id = kSrc;
  src.name = "raw.orders";
  src.checks_digest = "checks-src-1";
  in.sources = {src};
  return in;
}

NodeInput& find(ProjectInputs& in, const std::string& id) {
  for (auto& n : in.nodes)
    if (n.id == id) return n;
  throw std::runtime_error("no node " + id);
}

RunOutcome run(std::string id, std::string started, std::map<std::string, std::string> status) {
  RunOutcome r;
  r.run_id = std::move(id);
  r.started_at = std::move(started);
  r.node_status = std::move(status);
  return r;
}

RunOutcome all_success(std::string id, std::string started) {
  RunOutcome r = run(std::move(id), std::move(started), {{kSeed, "success"}, {kStg, "success"}, {kFct, "success"}});
  r.source_versions[kSrc] = version("2026-11-29T09:00:00", "2026-11-29T09:30:00Z");
  return r;
}

// The first snapshot: everything built successfully by run-1 at 10:00.
StateSnapshot first() {
  auto s = record(project(), nullptr, all_success("run-1", "2026-11-29T10:00:00Z"));
  if (!s) throw std::runtime_error(s.error().message);
  return *s;
}

TEST(Record, FirstRunRecordsEveryBuiltNode) {
  StateSnapshot s = first();
  EXPECT_EQ(s.project, "shop");
  EXPECT_EQ(s.environment, "dev");
  EXPECT_EQ(s.target_identity, kIdentity);
  EXPECT_EQ(s.run_id, "run-1");
  EXPECT_EQ(s.run_started_at, "2026-11-29T10:00:00Z");
  EXPECT_EQ(s.schema.to_string(), kSnapshotSchema.to_string());
  ASSERT_EQ(s.nodes.size(), 3u);
  const NodeState& stg = s.nodes.at(kStg);
  EXPECT_EQ(stg.run_id, "run-1");
  EXPECT_EQ(stg.built_at, "2026-11-29T10:00:00Z");
  EXPECT_EQ(stg.fingerprint, project().nodes[1].fingerprint);
  EXPECT_EQ(stg.raw_digest, project().nodes[1].raw_digest);
}

TEST(Record, EnvironmentDefaultsWithoutTarget) {
  ProjectInputs in = project();
  in.target = "";
  auto s = record(in, nullptr, all_success("run-1", "2026-11-29T10:00:00Z"));
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->environment, "default");
}

TEST(Record, OnlySuccessfulNodesAdvance) {
  StateSnapshot before = first();
  ProjectInputs in = project();
  for (auto& n : in.nodes) n.fingerprint.add("sql", "new code of " + n.id);
  auto next = record(in, &before,
                     run("run-2", "2026-11-29T11:00:00Z", {{kSeed, "skipped"}, {kStg, "success"}, {kFct, "error"}}));
  ASSERT_TRUE(next) << next.error().message;
  EXPECT_EQ(next->run_id, "run-2");
  EXPECT_EQ(next->nodes.at(kStg).run_id, "run-2");
  EXPECT_EQ(next->nodes.at(kStg).built_at, "2026-11-29T11:00:00Z");
  EXPECT_EQ(next->nodes.at(kStg).fingerprint, find(in, kStg).fingerprint);
  // The failed and the skipped node keep their last successful build, fingerprint and all.
  for (const auto& id : {kSeed, kFct}) {
    EXPECT_EQ(next->nodes.at(id).run_id, "run-1") << id;
    EXPECT_EQ(next->nodes.at(id).fingerprint, before.nodes.at(id).fingerprint) << id;
    EXPECT_EQ(next->nodes.at(id).parent_runs, before.nodes.at(id).parent_runs) << id;
  }
}

TEST(Record, NodeAbsentFromTheRunKeepsItsEntry) {
  StateSnapshot before = first();
  auto next = record(project(), &before, run("run-2", "2026-11-29T11:00:00Z", {{kStg, "success"}}));
  ASSERT_TRUE(next) << next.error().message;
  EXPECT_EQ(next->nodes.at(kSeed).run_id, "run-1");
  EXPECT_EQ(next->nodes.at(kFct).run_id, "run-1");
}

TEST(Record, NeverSucceededNodeHasNoEntry) {
  auto s = record(project(), nullptr,
                  run("run-1", "2026-11-29T10:00:00Z", {{kSeed, "success"}, {kStg, "error"}, {kFct, "skipped"}}));
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_TRUE(s->nodes.contains(kSeed));
  EXPECT_FALSE(s->nodes.contains(kStg));
  EXPECT_FALSE(s->nodes.contains(kFct));
}

TEST(Record, ParentRunsPointAtTheRunThatBuiltEachParent) {
  StateSnapshot before = first();
  EXPECT_EQ(before.nodes.at(kFct).parent_runs, (std::map<std::string, std::string>{{kSeed, "run-1"}, {kStg, "run-1"}}));
  // run-2 rebuilds stg_orders and fct_orders, not the seed.
  auto next = record(project(), &before, run("run-2", "2026-11-29T11:00:00Z", {{kStg, "success"}, {kFct, "success"}}));
  ASSERT_TRUE(next) << next.error().message;
  EXPECT_EQ(next->nodes.at(kFct).parent_runs, (std::map<std::string, std::string>{{kSeed, "run-1"}, {kStg, "run-2"}}));
  // A source is not a parent run.
  EXPECT_TRUE(next->nodes.at(kStg).parent_runs.empty());
}

TEST(Record, ParentThatFailedNowIsReadFromItsLastBuild) {
  StateSnapshot before = first();
  auto next = record(project(), &before, run("run-2", "2026-11-29T11:00:00Z", {{kStg, "error"}, {kFct, "success"}}));
  ASSERT_TRUE(next) << next.error().message;
  EXPECT_EQ(next->nodes.at(kFct).parent_runs.at(kStg), "run-1");
}

TEST(Record, SourceVersionsComeOnlyFromTheRunOutcome) {
  ProjectInputs in = project();
  in.sources[0].version = version("input version", "2026-11-29T09:00:00Z");  // the plan's, not the run's
  RunOutcome r = run("run-1", "2026-11-29T10:00:00Z", {{kStg, "success"}});
  auto without = record(in, nullptr, r);
  ASSERT_TRUE(without) << without.error().message;
  EXPECT_TRUE(without->nodes.at(kStg).source_versions.empty());

  r.source_versions[kSrc] = version("2026-11-29T09:00:00", "2026-11-29T09:30:00Z");
  auto with = record(in, nullptr, r);
  ASSERT_TRUE(with) << with.error().message;
  ASSERT_TRUE(with->nodes.at(kStg).source_versions.contains(kSrc));
  const DataVersion& v = with->nodes.at(kStg).source_versions.at(kSrc);
  EXPECT_EQ(v.value, "2026-11-29T09:00:00");
  EXPECT_EQ(v.observed_at, "2026-11-29T09:30:00Z");
  EXPECT_EQ(v.exactness, Exactness::semantic);
  // A node that doesn't read the source doesn't record it.
  EXPECT_FALSE(with->nodes.contains(kFct));
}

TEST(Record, SourceVersionMeasuredAtOrAfterTheStartIsNotUsed) {
  // ADR-0013: record() only uses sources.json taken strictly before the run started.
  for (const char* observed : {"2026-11-29T10:00:00Z", "2026-11-29T10:05:00Z", "not a time"}) {
    RunOutcome r = run("run-1", "2026-11-29T10:00:00Z", {{kStg, "success"}});
    r.source_versions[kSrc] = version("2026-11-29T09:59:00", observed);
    r.source_tests_passed[kSrc] = true;
    auto s = record(project(), nullptr, r);
    ASSERT_TRUE(s) << s.error().message;
    EXPECT_TRUE(s->nodes.at(kStg).source_versions.empty()) << observed;
    ASSERT_TRUE(s->sources.contains(kSrc)) << observed;
    EXPECT_FALSE(s->sources.at(kSrc).version.has_value()) << observed;
  }
}

TEST(Record, TestedWhenTestsPassedAndTheNodeHasChecks) {
  RunOutcome r = all_success("run-1", "2026-11-29T10:00:00Z");
  r.node_tests_passed = {{kFct, true}, {kStg, true}};  // stg_orders has no checks digest
  auto s = record(project(), nullptr, r);
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_TRUE(s->nodes.at(kFct).tested.has_value());
  EXPECT_EQ(s->nodes.at(kFct).tested->run_id, "run-1");
  EXPECT_EQ(s->nodes.at(kFct).tested->at, "2026-11-29T10:00:00Z");
  EXPECT_EQ(s->nodes.at(kFct).tested->checks_digest, "checks-fct-1");
  EXPECT_FALSE(s->nodes.at(kStg).tested.has_value()) << "a node with no checks is never tested";
  EXPECT_FALSE(s->nodes.at(kSeed).tested.has_value()) << "no tests ran on it";
}

TEST(Record, BuildWithFailingTestsIsNotTested) {
  RunOutcome r = all_success("run-1", "2026-11-29T10:00:00Z");
  r.node_tests_passed = {{kFct, false}};
  auto s = record(project(), nullptr, r);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->nodes.at(kFct).run_id, "run-1");  // the build still counts (tests don't force a rebuild)
  EXPECT_FALSE(s->nodes.at(kFct).tested.has_value());
}

TEST(Record, RebuildWithoutTestsIsUntested) {
  RunOutcome r1 = all_success("run-1", "2026-11-29T10:00:00Z");
  r1.node_tests_passed = {{kFct, true}};
  auto s1 = record(project(), nullptr, r1);
  ASSERT_TRUE(s1 && s1->nodes.at(kFct).tested);
  auto s2 = record(project(), &*s1, run("run-2", "2026-11-29T11:00:00Z", {{kFct, "success"}}));
  ASSERT_TRUE(s2) << s2.error().message;
  EXPECT_EQ(s2->nodes.at(kFct).run_id, "run-2");
  EXPECT_FALSE(s2->nodes.at(kFct).tested.has_value());
}

TEST(Record, FailedBuildKeepsTheEntryButLosesTested) {
  RunOutcome r1 = all_success("run-1", "2026-11-29T10:00:00Z");
  r1.node_tests_passed = {{kFct, true}};
  auto s1 = record(project(), nullptr, r1);
  ASSERT_TRUE(s1 && s1->nodes.at(kFct).tested);
  for (const char* status : {"error", "fail", "runtime error"}) {
    auto s2 = record(project(), &*s1, run("run-2", "2026-11-29T11:00:00Z", {{kFct, status}}));
    ASSERT_TRUE(s2) << s2.error().message;
    EXPECT_EQ(s2->nodes.at(kFct).run_id, "run-1") << status;
    EXPECT_FALSE(s2->nodes.at(kFct).tested.has_value()) << status;
  }
}

TEST(Record, SkippedNodeKeepsEntryAndTested) {
  RunOutcome r1 = all_success("run-1", "2026-11-29T10:00:00Z");
  r1.node_tests_passed = {{kFct, true}};
  auto s1 = record(project(), nullptr, r1);
  ASSERT_TRUE(s1 && s1->nodes.at(kFct).tested);
  auto s2 = record(project(), &*s1, run("run-2", "2026-11-29T11:00:00Z", {{kStg, "error"}, {kFct, "skipped"}}));
  ASSERT_TRUE(s2) << s2.error().message;
  EXPECT_EQ(s2->nodes.at(kFct).run_id, "run-1");
  ASSERT_TRUE(s2->nodes.at(kFct).tested.has_value());
  EXPECT_EQ(s2->nodes.at(kFct).tested->run_id, "run-1");
}

TEST(Record, TestOnlyRunSetsOrClearsTestedWithoutTouchingTheBuild) {
  StateSnapshot s1 = first();
  ASSERT_FALSE(s1.nodes.at(kFct).tested);
  RunOutcome pass = run("run-2", "2026-11-29T11:00:00Z", {});
  pass.node_tests_passed = {{kFct, true}};
  auto s2 = record(project(), &s1, pass);
  ASSERT_TRUE(s2) << s2.error().message;
  EXPECT_EQ(s2->nodes.at(kFct).run_id, "run-1");
  EXPECT_EQ(s2->nodes.at(kFct).built_at, "2026-11-29T10:00:00Z");
  ASSERT_TRUE(s2->nodes.at(kFct).tested.has_value());
  EXPECT_EQ(s2->nodes.at(kFct).tested->run_id, "run-2");
  EXPECT_EQ(s2->nodes.at(kFct).tested->checks_digest, "checks-fct-1");

  RunOutcome fail = run("run-3", "2026-11-29T12:00:00Z", {});
  fail.node_tests_passed = {{kFct, false}};
  auto s3 = record(project(), &*s2, fail);
  ASSERT_TRUE(s3) << s3.error().message;
  EXPECT_EQ(s3->nodes.at(kFct).run_id, "run-1");
  EXPECT_FALSE(s3->nodes.at(kFct).tested.has_value());
}

TEST(Record, ChecksOnlyRunNeverChangesABuild) {
  StateSnapshot s1 = first();
  // A test-only run reports no builds; even a status for a planned node is not taken as one.
  RunOutcome tests = run("run-2", "2026-11-29T11:00:00Z", {{kStg, "success"}, {kSeed, "error"}});
  tests.checks_only = true;
  tests.node_tests_passed = {{kFct, true}};
  auto s2 = record(project(), &s1, tests);
  ASSERT_TRUE(s2) << s2.error().message;
  for (const auto& id : {kSeed, kStg, kFct}) {
    EXPECT_EQ(s2->nodes.at(id).run_id, "run-1") << id;
    EXPECT_EQ(s2->nodes.at(id).fingerprint.digest(), s1.nodes.at(id).fingerprint.digest()) << id;
  }
  ASSERT_TRUE(s2->nodes.at(kFct).tested.has_value());
  EXPECT_EQ(s2->nodes.at(kFct).tested->run_id, "run-2");
  EXPECT_FALSE(s2->nodes.at(kSeed).tested.has_value());
  EXPECT_EQ(s2->run_id, "run-2");
}

TEST(Record, SourceTestRecords) {
  RunOutcome r1 = all_success("run-1", "2026-11-29T10:00:00Z");
  r1.source_tests_passed[kSrc] = true;
  auto s1 = record(project(), nullptr, r1);
  ASSERT_TRUE(s1) << s1.error().message;
  ASSERT_TRUE(s1->sources.contains(kSrc));
  const SourceState& first_pass = s1->sources.at(kSrc);
  ASSERT_TRUE(first_pass.tested.has_value());
  EXPECT_EQ(first_pass.tested->run_id, "run-1");
  EXPECT_EQ(first_pass.tested->checks_digest, "checks-src-1");
  ASSERT_TRUE(first_pass.version.has_value());
  EXPECT_EQ(first_pass.version->value, "2026-11-29T09:00:00");

  // A run that doesn't test the source carries the record over.
  auto s2 = record(project(), &*s1, run("run-2", "2026-11-29T11:00:00Z", {{kStg, "success"}}));
  ASSERT_TRUE(s2) << s2.error().message;
  ASSERT_TRUE(s2->sources.contains(kSrc));
  EXPECT_EQ(s2->sources.at(kSrc).tested->run_id, "run-1");

  // A pass replaces it; a pass after no measurement vouches for no version.
  ProjectInputs in = project();
  in.sources[0].checks_digest = "checks-src-2";
  RunOutcome r3 = run("run-3", "2026-11-29T12:00:00Z", {});
  r3.source_tests_passed[kSrc] = true;
  auto s3 = record(in, &*s2, r3);
  ASSERT_TRUE(s3) << s3.error().message;
  EXPECT_EQ(s3->sources.at(kSrc).tested->run_id, "run-3");
  EXPECT_EQ(s3->sources.at(kSrc).tested->checks_digest, "checks-src-2");
  EXPECT_FALSE(s3->sources.at(kSrc).version.has_value());

  // A failure removes it.
  RunOutcome r4 = run("run-4", "2026-11-29T13:00:00Z", {});
  r4.source_tests_passed[kSrc] = false;
  auto s4 = record(in, &*s3, r4);
  ASSERT_TRUE(s4) << s4.error().message;
  EXPECT_FALSE(s4->sources.contains(kSrc));
  EXPECT_EQ(s4->nodes.size(), 3u);  // node builds are untouched by source tests
}

TEST(Record, StaleRunIsRefused) {
  StateSnapshot before = first();
  auto r = record(project(), &before, all_success("run-0", "2026-11-29T09:59:59Z"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, "stale_run");
  EXPECT_NE(r.error().message.find("run-0"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("run-1"), std::string::npos) << r.error().message;
  // The same start time is not earlier (a re-recorded run is the CLI's to refuse, by id).
  EXPECT_TRUE(record(project(), &before, all_success("run-1b", "2026-11-29T10:00:00Z")));
  // Start times are compared as instants, not as text.
  EXPECT_TRUE(record(project(), &before, all_success("run-2", "2026-11-29T12:30:00+02:00")));
  auto earlier = record(project(), &before, all_success("run-2", "2026-11-29T11:30:00+02:00"));
  ASSERT_FALSE(earlier);
  EXPECT_EQ(earlier.error().code, "stale_run");
}

TEST(Record, RunWithoutAStartTimeIsRefused) {
  auto r = record(project(), nullptr, all_success("run-1", "yesterday"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, "invalid_run");
}

TEST(Record, ProjectWithoutNameIsRefused) {
  ProjectInputs in = project();
  in.project = "";
  auto r = record(in, nullptr, all_success("run-1", "2026-11-29T10:00:00Z"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, "no_project_name");
  EXPECT_FALSE(r.error().message.empty());
}

TEST(Record, CycleIsAnError) {
  ProjectInputs in = project();
  find(in, kStg).parents.push_back(kFct);
  auto r = record(in, nullptr, all_success("run-1", "2026-11-29T10:00:00Z"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, "cycle");
}

TEST(Record, NodesRemovedFromTheProjectAreDropped) {
  StateSnapshot before = first();
  ProjectInputs in = project();
  in.nodes.pop_back();  // fct_orders deleted
  auto next = record(in, &before, run("run-2", "2026-11-29T11:00:00Z", {{kStg, "success"}}));
  ASSERT_TRUE(next) << next.error().message;
  EXPECT_FALSE(next->nodes.contains(kFct));
  EXPECT_EQ(next->nodes.size(), 2u);
  EXPECT_EQ(next->nodes.at(kSeed).run_id, "run-1");
}

TEST(Record, AnotherTargetIdentityStartsFromEmpty) {
  RunOutcome r1 = all_success("run-1", "2026-11-29T10:00:00Z");
  r1.source_tests_passed[kSrc] = true;
  auto s1 = record(project(), nullptr, r1);
  ASSERT_TRUE(s1 && s1->sources.contains(kSrc));
  ProjectInputs prod = project();
  prod.target_identity = "duckdb/shop/prod";
  // Earlier than the recorded run: not stale, since nothing of the other target is kept.
  auto next = record(prod, &*s1, run("run-p", "2026-11-29T09:00:00Z", {{kSeed, "success"}}));
  ASSERT_TRUE(next) << next.error().message;
  EXPECT_EQ(next->target_identity, "duckdb/shop/prod");
  EXPECT_EQ(next->nodes.size(), 1u);
  EXPECT_EQ(next->nodes.at(kSeed).run_id, "run-p");
  EXPECT_TRUE(next->sources.empty());
}

// A run that built nothing learns the keys of the nodes whose compile matched the recorded SQL
// (an incremental model recorded without a key at its first build): record() gives each the key.
TEST(Record, ARunThatBuiltNothingLearnsTheKeysOfTheRecordedSql) {
  const StateSnapshot s1 = first();  // recorded without keys
  ProjectInputs now = project();
  find(now, kStg).compile_key = "key-stg";
  find(now, kFct).compile_key = "key-fct";
  find(now, kFct).fingerprint.add("sql", "code edited");  // not the recorded SQL: no key learned
  EXPECT_EQ(compile_keys_to_record(now, s1), std::vector<std::string>{kStg});
  find(now, kStg).incomplete.push_back("its SQL is unknown");  // incomplete code: no key
  EXPECT_TRUE(compile_keys_to_record(now, s1).empty());
  find(now, kStg).incomplete.clear();
  ProjectInputs prod = now;
  prod.target_identity = "duckdb/shop/prod";
  EXPECT_TRUE(compile_keys_to_record(prod, s1).empty());

  auto s2 = record(now, &s1, run("run-2", "2026-11-29T11:00:00Z", {}));
  ASSERT_TRUE(s2) << s2.error().message;
  EXPECT_EQ(s2->nodes.at(kStg).compile_key, "key-stg");
  EXPECT_EQ(s2->nodes.at(kStg).run_id, "run-1");  // the build it keeps
  EXPECT_TRUE(s2->nodes.at(kFct).compile_key.empty());
  EXPECT_TRUE(compile_keys_to_record(now, *s2).empty());  // learned once
}

// ---- record, then plan

ProjectInputs planned_after_first(const char* observed_at) {
  ProjectInputs in = project();
  in.sources[0].version = version("2026-11-29T09:00:00", observed_at);
  return in;
}

TEST(RecordThenPlan, SameInputsReuseEverything) {
  StateSnapshot s = first();
  ProjectInputs in = planned_after_first("2026-11-29T11:00:00Z");  // sources.json taken after the build
  PlanOptions opts;
  opts.now = "2026-11-29T12:00:00Z";
  auto p = plan(in, &s, opts);
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_EQ(p->entries.size(), 3u);
  for (const auto& e : p->entries) {
    EXPECT_EQ(e.action, Action::reuse) << e.id;
    ASSERT_FALSE(e.reasons.empty());
    EXPECT_EQ(e.reasons.front().code, "unchanged") << e.id << ": " << e.reasons.front().message;
    EXPECT_NE(e.reasons.front().message.find("run-1"), std::string::npos);
    EXPECT_EQ(e.reasons.size(), 1u) << e.id;  // raw text unchanged: no formatting_only
  }
  EXPECT_EQ(p->select, "");
  EXPECT_EQ(p->scope, "shop/dev");
  EXPECT_TRUE(p->warnings.empty());
}

TEST(RecordThenPlan, AfterAPartialRunTheFailedNodeBuilds) {
  StateSnapshot s1 = first();
  // run-2 rebuilds stg_orders but fct_orders fails: it still read run-1's stg_orders.
  RunOutcome r2 = run("run-2", "2026-11-29T11:00:00Z", {{kStg, "success"}, {kFct, "error"}});
  r2.source_versions[kSrc] = version("2026-11-29T09:00:00", "2026-11-29T10:30:00Z");
  auto s2 = record(project(), &s1, r2);
  ASSERT_TRUE(s2) << s2.error().message;
  auto p =
      plan(planned_after_first("2026-11-29T11:30:00Z"), &*s2, PlanOptions{std::nullopt, "2026-11-29T12:00:00Z", {}});
  ASSERT_TRUE(p) << p.error().message;
  std::map<std::string, const PlanEntry*> by_id;
  for (const auto& e : p->entries) by_id[e.id] = &e;
  EXPECT_EQ(by_id.at(kSeed)->reasons.front().code, "unchanged");
  EXPECT_EQ(by_id.at(kStg)->reasons.front().code, "unchanged");
  EXPECT_NE(by_id.at(kStg)->reasons.front().message.find("run-2"), std::string::npos);
  EXPECT_EQ(by_id.at(kFct)->action, Action::build);
  EXPECT_EQ(by_id.at(kFct)->reasons.front().code, "new_upstream_data");
  EXPECT_NE(by_id.at(kFct)->reasons.front().message.find("rebuilt by run run-2"), std::string::npos)
      << by_id.at(kFct)->reasons.front().message;
  EXPECT_EQ(p->select, "fct_orders");
}

TEST(RecordThenPlan, StaleSourcesJsonBuildsAndWarns) {
  StateSnapshot s = first();
  // The same sources.json the run used (observed at 09:30, before the 10:00 build).
  auto p = plan(planned_after_first("2026-11-29T09:30:00Z"), &s, PlanOptions{std::nullopt, "2026-11-29T12:00:00Z", {}});
  ASSERT_TRUE(p) << p.error().message;
  const PlanEntry* stg = nullptr;
  for (const auto& e : p->entries)
    if (e.id == kStg) stg = &e;
  ASSERT_NE(stg, nullptr);
  EXPECT_EQ(stg->action, Action::build);
  EXPECT_EQ(stg->reasons.front().code, "missing_data_evidence");
  ASSERT_EQ(p->warnings.size(), 1u);
  EXPECT_NE(p->warnings[0].find("dbt source freshness"), std::string::npos) << p->warnings[0];
}

TEST(RecordThenPlan, OtherTargetIsNotReusedAndWarns) {
  StateSnapshot s = first();
  ProjectInputs in = planned_after_first("2026-11-29T11:00:00Z");
  in.target_identity = "duckdb/shop/prod";
  auto p = plan(in, &s, PlanOptions{std::nullopt, "2026-11-29T12:00:00Z", {}});
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->count(Action::build), 3);
  for (const auto& e : p->entries) EXPECT_EQ(e.reasons.front().code, "never_built") << e.id;
  ASSERT_EQ(p->warnings.size(), 1u);
  EXPECT_NE(p->warnings[0].find("duckdb/shop/prod"), std::string::npos) << p->warnings[0];
}

}  // namespace

namespace {

CheckAction check_action(const CheckPlan& plan, const std::string& id) {
  for (const auto& e : plan.entries)
    if (e.id == id) return e.action;
  throw std::runtime_error("no check entry " + id);
}

}  // namespace

// record() then plan_checks(): a pass is skipped next time, a failure runs again, an edited
// check runs again (#220); a source runs again when its data moves (#232).
TEST(RecordThenCheck, PassesAreSkippedFailuresAndEditsRunAgain) {
  ProjectInputs in = project();
  in.sources[0].version = version("v1", "2026-11-29T09:30:00Z");
  StateSnapshot s1 = first();
  CheckPlan before = plan_checks(in, &s1, {});
  EXPECT_EQ(check_action(before, kFct), CheckAction::run);
  EXPECT_EQ(check_action(before, kSrc), CheckAction::run);
  EXPECT_EQ(before.without_checks, 2);

  RunOutcome pass = run("run-2", "2026-11-29T11:00:00Z", {});
  pass.checks_only = true;
  pass.node_tests_passed = {{kFct, true}};
  pass.source_tests_passed = {{kSrc, true}};
  pass.source_versions[kSrc] = *in.sources[0].version;
  auto s2 = record(in, &s1, pass);
  ASSERT_TRUE(s2) << s2.error().message;
  in.sources[0].version = version("v1", "2026-11-29T11:30:00Z");  // measured again, unchanged
  CheckPlan after = plan_checks(in, &*s2, {});
  EXPECT_EQ(after.count(CheckAction::run), 0);

  in.sources[0].version = version("v2", "2026-11-29T11:30:00Z");  // new rows
  EXPECT_EQ(check_action(plan_checks(in, &*s2, {}), kSrc), CheckAction::run);
  in.sources[0].version = version("v1", "2026-11-29T11:30:00Z");

  find(in, kFct).checks_digest = "checks-fct-2";  // an edited test
  EXPECT_EQ(plan_checks(in, &*s2, {}).entries.back().reasons.front().code, "checks_changed");
  find(in, kFct).checks_digest = "checks-fct-1";

  RunOutcome fail = run("run-3", "2026-11-29T12:00:00Z", {});
  fail.checks_only = true;
  fail.node_tests_passed = {{kFct, false}};
  auto s3 = record(in, &*s2, fail);
  ASSERT_TRUE(s3) << s3.error().message;
  EXPECT_EQ(check_action(plan_checks(in, &*s3, {}), kFct), CheckAction::run);
  EXPECT_EQ(check_action(plan_checks(in, &*s3, {}), kSrc), CheckAction::skip);
}

namespace {

DataVersion content(std::string value) {
  return DataVersion{std::move(value), Exactness::exact, "duckdb_content", "2026-11-29T10:05:00Z"};
}

}  // namespace

// Early cutoff (snapshot 1.3): each built node's content after its build, and the content of
// each parent a built node read.
TEST(RecordCutoff, BuiltNodesKeepTheirContentAndTheContentOfParentsTheyRead) {
  RunOutcome r = all_success("run-1", "2026-11-29T10:00:00Z");
  r.node_contents[kStg] = content("rows=3;hash=1");
  r.node_contents[kFct] = content("rows=3;hash=2");
  auto s = record(project(), nullptr, r);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->nodes.at(kStg).content->value, "rows=3;hash=1");
  EXPECT_EQ(s->nodes.at(kFct).parent_contents.at(kStg).value, "rows=3;hash=1");
  EXPECT_FALSE(s->nodes.at(kFct).parent_contents.contains(kSeed));  // not measured: unknown, no entry
  EXPECT_FALSE(s->nodes.at(kSeed).content.has_value());
}

TEST(RecordCutoff, AParentRebuiltForDataKeepsWhatItsUnbuiltReaderRead) {
  RunOutcome r1 = all_success("run-1", "2026-11-29T10:00:00Z");
  r1.node_contents[kStg] = content("rows=3;hash=1");
  auto s1 = record(project(), nullptr, r1);
  ASSERT_TRUE(s1);
  RunOutcome r2 = run("run-2", "2026-11-29T11:00:00Z", {{kStg, "success"}});
  r2.node_contents[kStg] = content("rows=3;hash=1");
  auto s2 = record(project(), &*s1, r2);
  ASSERT_TRUE(s2);
  EXPECT_EQ(s2->nodes.at(kStg).run_id, "run-2");
  EXPECT_EQ(s2->nodes.at(kFct).parent_runs.at(kStg), "run-1");
  EXPECT_EQ(s2->nodes.at(kFct).parent_contents.at(kStg).value, "rows=3;hash=1");
}

// A content that covers the columns too proves the output whatever the code change was: the
// reader left unbuilt keeps it, for the planner to compare with the new build's (issue 27).
TEST(RecordCutoff, AParentRebuiltForCodeKeepsWhatItsUnbuiltReaderReadWhenTheContentCoversTheColumns) {
  DataVersion with_columns = content("rows=3;hash=1;schema=0123456789abcdef0123456789abcdef");
  with_columns.covers_schema = true;
  RunOutcome r1 = all_success("run-1", "2026-11-29T10:00:00Z");
  r1.node_contents[kStg] = with_columns;
  auto s1 = record(project(), nullptr, r1);
  ASSERT_TRUE(s1);
  RunOutcome r2 = run("run-2", "2026-11-29T11:00:00Z", {{kStg, "success"}});
  r2.node_contents[kStg] = with_columns;
  r2.built_for_code = {kStg};
  auto s2 = record(project(), &*s1, r2);
  ASSERT_TRUE(s2);
  ASSERT_TRUE(s2->nodes.at(kFct).parent_contents.contains(kStg));
  EXPECT_TRUE(s2->nodes.at(kFct).parent_contents.at(kStg).covers_schema);
  EXPECT_EQ(s2->nodes.at(kFct).parent_contents.at(kStg), *s2->nodes.at(kStg).content);
  EXPECT_EQ(s2->nodes.at(kFct).parent_runs.at(kStg), "run-1");  // it read the older build
}

TEST(RecordCutoff, AParentRebuiltForCodeDropsWhatItsUnbuiltReaderRead) {
  RunOutcome r1 = all_success("run-1", "2026-11-29T10:00:00Z");
  r1.node_contents[kStg] = content("rows=3;hash=1");
  auto s1 = record(project(), nullptr, r1);
  ASSERT_TRUE(s1);
  RunOutcome r2 = run("run-2", "2026-11-29T11:00:00Z", {{kStg, "success"}});
  r2.node_contents[kStg] = content("rows=3;hash=1");
  r2.built_for_code = {kStg};
  auto s2 = record(project(), &*s1, r2);
  ASSERT_TRUE(s2);
  EXPECT_FALSE(s2->nodes.at(kFct).parent_contents.contains(kStg));  // a code change never cuts off
  EXPECT_EQ(s2->nodes.at(kStg).content->value, "rows=3;hash=1");
}

TEST(RecordCutoff, AFailedCodeBuildChangesNothing) {
  RunOutcome r1 = all_success("run-1", "2026-11-29T10:00:00Z");
  r1.node_contents[kStg] = content("rows=3;hash=1");
  auto s1 = record(project(), nullptr, r1);
  ASSERT_TRUE(s1);
  RunOutcome r2 = run("run-2", "2026-11-29T11:00:00Z", {{kStg, "error"}});
  r2.built_for_code = {kStg};
  auto s2 = record(project(), &*s1, r2);
  ASSERT_TRUE(s2);
  EXPECT_EQ(s2->nodes.at(kStg).run_id, "run-1");
  EXPECT_EQ(s2->nodes.at(kStg).content->value, "rows=3;hash=1");
  EXPECT_EQ(s2->nodes.at(kFct).parent_contents.at(kStg).value, "rows=3;hash=1");
}

// Relation identity (snapshot 1.5): a node built successfully records its relation's identity
// read after the build; a node not built keeps the identity its build recorded; a failed build
// records none of this run's; a document round trip keeps it, and an older document has none.
TEST(RecordIdentity, BuiltNodesRecordTheIdentityReadAfterTheirBuildOthersKeepTheirs) {
  RunOutcome r1 = all_success("run-1", "2026-11-29T10:00:00Z");
  r1.node_identities = {{kSeed, "rows=3;hash=1"}, {kStg, "oid=1;relfilenode=1"}, {kFct, "oid=2;relfilenode=2"}};
  auto s1 = record(project(), nullptr, r1);
  ASSERT_TRUE(s1) << s1.error().message;
  EXPECT_EQ(s1->nodes.at(kStg).relation_identity, "oid=1;relfilenode=1");
  RunOutcome r2 = run("run-2", "2026-11-29T11:00:00Z", {{kStg, "success"}, {kFct, "error"}});
  r2.node_identities = {{kSeed, "rows=3;hash=9"}, {kStg, "oid=5;relfilenode=5"}, {kFct, "oid=6;relfilenode=6"}};
  auto s2 = record(project(), &*s1, r2);
  ASSERT_TRUE(s2) << s2.error().message;
  EXPECT_EQ(s2->nodes.at(kStg).relation_identity, "oid=5;relfilenode=5");  // rebuilt: the new one
  EXPECT_EQ(s2->nodes.at(kSeed).relation_identity, "rows=3;hash=1");       // not built: as its build recorded
  EXPECT_EQ(s2->nodes.at(kFct).relation_identity, "oid=2;relfilenode=2");  // failed: its last build's
  auto back = snapshot_from_json(to_json(*s2));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->nodes.at(kStg).relation_identity, "oid=5;relfilenode=5");
  RunOutcome r3 = all_success("run-3", "2026-11-29T12:00:00Z");  // read nothing (a pod, a failed read)
  auto s3 = record(project(), &*s2, r3);
  ASSERT_TRUE(s3);
  EXPECT_EQ(s3->nodes.at(kStg).relation_identity, "");  // none recorded: its next reuse checks existence only
}
