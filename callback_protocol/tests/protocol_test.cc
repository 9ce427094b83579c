// The protocol's bodies: what one side writes the other reads back; a malformed body is
// refused naming the field.
#include "ods/callback/protocol.h"

#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>

#include "ods/planner/json_io.h"
#include "test_inputs.h"

namespace ods::callback {
namespace {

using nlohmann::json;
using testing::test_inputs;

InputsRequest inputs_request() {
  InputsRequest r;
  r.inputs = test_inputs();
  r.relations_exist = std::map<std::string, bool>{{testing::kStg, true}};
  r.probe.strategy = "duckdb_content";
  r.probe.call_seconds = 1.5;
  r.probe.source_seconds = {{testing::kSrc, 0.02}};
  r.compile_seconds = 3;
  r.probe_seconds = 2;
  return r;
}

// The body of `r` with `edit` applied to its JSON.
std::string edited(const InputsRequest& r, const std::function<void(json&)>& edit) {
  json doc = json::parse(to_json(r));
  edit(doc);
  return doc.dump();
}

FieldError refusal_of(const std::string& body) {
  auto parsed = parse_inputs_request(body);
  EXPECT_FALSE(parsed) << body.substr(0, 200);
  return parsed ? FieldError{} : parsed.error();
}

TEST(Protocol, InputsRequestReadsBackWhatWasWritten) {
  auto parsed = parse_inputs_request(to_json(inputs_request()));
  ASSERT_TRUE(parsed) << parsed.error().field << ": " << parsed.error().message;
  EXPECT_EQ(planner::inputs_digest(parsed->inputs), planner::inputs_digest(test_inputs()));
  EXPECT_EQ(parsed->relations_exist->at(testing::kStg), true);
  EXPECT_FALSE(parsed->selected);
  EXPECT_EQ(parsed->probe.source_seconds.at(testing::kSrc), 0.02);
  EXPECT_EQ(parsed->compile_seconds, 3);
}

TEST(Protocol, MalformedInputsAreRefusedNamingTheField) {
  const InputsRequest r = inputs_request();
  EXPECT_EQ(refusal_of("not json").field, "");
  EXPECT_EQ(refusal_of("[1]").field, "");
  EXPECT_EQ(refusal_of(edited(r, [](json& d) { d["protocol"] = 2; })).field, "protocol");
  EXPECT_EQ(refusal_of(edited(r, [](json& d) { d.erase("inputs"); })).field, "inputs");
  EXPECT_EQ(refusal_of(edited(r, [](json& d) { d["inputs"]["nodes"] = 7; })).field, "inputs");
  EXPECT_EQ(refusal_of(edited(r, [](json& d) { d["probe"].erase("call_seconds"); })).field, "probe.call_seconds");
  EXPECT_EQ(refusal_of(edited(r, [](json& d) { d["probe"]["source_seconds"]["x"] = "slow"; })).field,
            "probe.source_seconds.x");
  EXPECT_EQ(refusal_of(edited(r, [](json& d) { d["relations_exist"] = {{"m", 1}}; })).field, "relations_exist.m");
  EXPECT_EQ(refusal_of(edited(r, [](json& d) { d["selected"] = {"a", 3}; })).field, "selected[1]");
  EXPECT_EQ(refusal_of(edited(r, [](json& d) { d["timings"] = "fast"; })).field, "timings");
}

TEST(Protocol, RefusalsSayWhatIsWrongInTheProtocolsWords) {
  const InputsRequest r = inputs_request();
  EXPECT_EQ(refusal_of("not json").message, "the body is not JSON");
  EXPECT_EQ(refusal_of(edited(r, [](json& d) { d["probe"].erase("call_seconds"); })).message, "is missing");
  EXPECT_EQ(refusal_of(edited(r, [](json& d) { d["probe"]["source_seconds"]["x"] = "slow"; })).message,
            "must be a number");
  EXPECT_EQ(refusal_of(edited(r, [](json& d) { d["relations_exist"] = {{"m", 1}}; })).message, "must be true or false");
  EXPECT_EQ(refusal_of(edited(r, [](json& d) { d["selected"] = {"a", 3}; })).message, "must be a string");
  EXPECT_EQ(refusal_of(edited(r, [](json& d) { d["selected"] = "a"; })).message, "must be an array of strings");
  EXPECT_EQ(refusal_of(edited(r, [](json& d) { d["timings"] = "fast"; })).message, "must be an object");
  EXPECT_EQ(refusal_of(edited(r, [](json& d) { d["protocol"] = "1"; })).message, "must be an integer");
}

TEST(Protocol, ResultsRequestReadsBackWhatWasWritten) {
  ResultsRequest r;
  r.inputs = test_inputs();
  r.total_seconds = 12;
  BuildReport b;
  b.exit_code = 1;
  b.seconds = 7;
  b.results = BuildResults{"inv-1",
                           "2026-11-30T01:00:00Z",
                           "2026-11-30T01:00:07Z",
                           {{testing::kStg, "success"}, {testing::kFct, "error"}},
                           {},
                           {},
                           {{testing::kStg, 0.5}},
                           "1 success, 1 error"};
  r.build = b;
  auto parsed = parse_results_request(to_json(r));
  ASSERT_TRUE(parsed) << parsed.error().field << ": " << parsed.error().message;
  ASSERT_TRUE(parsed->build && parsed->build->results);
  EXPECT_EQ(parsed->build->exit_code, 1);
  EXPECT_EQ(parsed->build->results->node_status.at(testing::kFct), "error");
  EXPECT_EQ(parsed->build->results->started_at, "2026-11-30T01:00:00Z");

  json doc = json::parse(to_json(r));
  doc["build"]["results"]["node_status"][testing::kStg] = true;
  auto bad = parse_results_request(doc.dump());
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "build.results.node_status." + testing::kStg);
  doc = json::parse(to_json(r));
  doc["build"].erase("exit_code");
  EXPECT_EQ(parse_results_request(doc.dump()).error().field, "build.exit_code");
}

TEST(Protocol, AnswersReadBackWhatWasWritten) {
  PlanAnswer plan{"uid-1", "shop/dev", R"({"entries":[]})", {"stg_orders", "source:raw.orders"}, 1, 1};
  auto p = parse_plan_answer(to_json(plan));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->select, plan.select);
  EXPECT_EQ(json::parse(p->plan_json), json::parse(plan.plan_json));
  RecordedAnswer recorded{"uid-1", "partial", "s-7", 1, 2, 1, 0, "1 success, 1 error", true};
  auto a = parse_recorded_answer(to_json(recorded));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->snapshot_id, "s-7");
  EXPECT_EQ(a->failed, 1);
  EXPECT_TRUE(a->already_recorded);
}

}  // namespace
}  // namespace ods::callback

namespace ods::callback {
namespace {

TEST(Protocol, TheHeadAnswerReadsBackWhatWasWrittenAndNeedsItsSnapshotWithItsId) {
  HeadAnswer none{"shop/dev", std::nullopt, std::nullopt};
  auto n = parse_head_answer(to_json(none));
  ASSERT_TRUE(n);
  EXPECT_EQ(n->scope, "shop/dev");
  EXPECT_FALSE(n->snapshot);
  planner::StateSnapshot snapshot;
  snapshot.run_id = "uid-1";
  snapshot.project = "shop";
  snapshot.environment = "dev";
  HeadAnswer some{"shop/dev", "s-1", snapshot};
  auto s = parse_head_answer(to_json(some));
  ASSERT_TRUE(s) << s.error().field << ": " << s.error().message;
  EXPECT_EQ(s->snapshot_id, "s-1");
  ASSERT_TRUE(s->snapshot);
  EXPECT_EQ(s->snapshot->run_id, "uid-1");
  auto missing = parse_head_answer(R"({"protocol": 1, "scope": "shop/dev", "snapshot_id": "s-1", "snapshot": null})");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().field, "snapshot");
  EXPECT_FALSE(parse_head_answer(R"({"protocol": 1, "scope": ""})"));
  EXPECT_TRUE(parse_head_request(to_json(HeadRequest{})));
  EXPECT_FALSE(parse_head_request("{}"));
}

}  // namespace
}  // namespace ods::callback
