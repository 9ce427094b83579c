// The wave messages of early cutoff (WaveReport, WaveAnswer, the plan answer's `wave`, the
// contents in results): what one side writes the other reads back; a malformed body is
// refused naming the field.
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>

#include "ods/callback/protocol.h"
#include "ods/planner/json_io.h"
#include "test_inputs.h"

namespace ods::callback {
namespace {

using nlohmann::json;
using testing::test_inputs;

// covers_schema: the columns are part of the content (early cutoff after a code change).
const planner::DataVersion kContent{"rows=3;hash=1234;schema=0123456789abcdef0123456789abcdef",
                                    planner::Exactness::exact, "duckdb_content", "2026-11-30T01:00:09Z", true};

WaveReport wave_report() {
  WaveReport r;
  r.wave = 1;
  r.inputs = test_inputs();
  r.build.exit_code = 0;
  r.build.seconds = 4;
  r.build.results = BuildResults{"inv-1",
                                 "2026-11-30T01:00:00Z",
                                 "2026-11-30T01:00:04Z",
                                 {{testing::kStg, "success"}},
                                 {},
                                 {},
                                 {{testing::kStg, 0.4}},
                                 "1 success"};
  r.node_contents = {{testing::kStg, kContent}};
  return r;
}

std::string edited(const std::string& body, const std::function<void(json&)>& edit) {
  json doc = json::parse(body);
  edit(doc);
  return doc.dump();
}

std::string report_refusal(const std::function<void(json&)>& edit) {
  auto parsed = parse_wave_report(edited(to_json(wave_report()), edit));
  EXPECT_FALSE(parsed);
  return parsed ? "(accepted)" : parsed.error().field;
}

TEST(WaveProtocol, WaveReportReadsBackWhatWasWritten) {
  auto parsed = parse_wave_report(to_json(wave_report()));
  ASSERT_TRUE(parsed) << parsed.error().field << ": " << parsed.error().message;
  EXPECT_EQ(parsed->wave, 1);
  EXPECT_EQ(planner::inputs_digest(parsed->inputs), planner::inputs_digest(test_inputs()));
  ASSERT_TRUE(parsed->build.results);
  EXPECT_EQ(parsed->build.results->node_status.at(testing::kStg), "success");
  ASSERT_EQ(parsed->node_contents.size(), 1u);
  EXPECT_EQ(parsed->node_contents.at(testing::kStg), kContent);
  EXPECT_EQ(parsed->node_contents.at(testing::kStg).observed_at, kContent.observed_at);
}

// A measured content is written in the planner's one form of a data version (planner::to_json),
// byte for byte, whatever the report holds beside it.
TEST(WaveProtocol, ContentsAreWrittenInThePlannersFormOfADataVersion) {
  WaveReport r = wave_report();
  planner::DataVersion other = kContent;
  other.covers_schema = false;
  other.value = "rows=\"1\"\n";
  r.node_contents[testing::kFct] = other;
  const std::string body = to_json(r);
  for (const auto& [id, v] : r.node_contents) {
    const std::string written = json(id).dump() + ":" + planner::to_json(v);
    EXPECT_NE(body.find(written), std::string::npos) << written << " in " << body.substr(0, 400);
  }
  EXPECT_EQ(json::parse(body)["node_contents"].size(), 2u);
  r.node_contents.clear();
  EXPECT_EQ(json::parse(to_json(r))["node_contents"], json::object()) << "none measured: an empty object";
}

TEST(WaveProtocol, MalformedWaveReportsAreRefusedNamingTheField) {
  EXPECT_EQ(report_refusal([](json& d) { d["protocol"] = 2; }), "protocol");
  EXPECT_EQ(report_refusal([](json& d) { d.erase("wave_protocol"); }), "wave_protocol");
  EXPECT_EQ(report_refusal([](json& d) { d["wave_protocol"] = 2; }), "wave_protocol");
  EXPECT_EQ(report_refusal([](json& d) { d["wave"] = 0; }), "wave");
  EXPECT_EQ(report_refusal([](json& d) { d["wave"] = "1"; }), "wave");
  EXPECT_EQ(report_refusal([](json& d) { d.erase("inputs"); }), "inputs");
  EXPECT_EQ(report_refusal([](json& d) { d["build"] = nullptr; }), "build");
  EXPECT_EQ(report_refusal([](json& d) { d["build"]["results"] = nullptr; }), "build.results");
  EXPECT_EQ(report_refusal([](json& d) { d["build"].erase("exit_code"); }), "build.exit_code");
  EXPECT_EQ(report_refusal([](json& d) { d["node_contents"] = {1, 2}; }), "node_contents");
  const std::string at = "node_contents." + testing::kStg;
  EXPECT_EQ(report_refusal([&](json& d) { d["node_contents"][testing::kStg] = "rows=3"; }), at);
  EXPECT_EQ(report_refusal([&](json& d) { d["node_contents"][testing::kStg]["exactness"] = "certain"; }),
            at + ".exactness");
  EXPECT_EQ(report_refusal([&](json& d) { d["node_contents"][testing::kStg]["value"] = ""; }), at + ".value");
  EXPECT_EQ(report_refusal([&](json& d) { d["node_contents"][testing::kStg].erase("origin"); }), at + ".origin");
  EXPECT_EQ(report_refusal([&](json& d) { d["node_contents"][testing::kStg]["covers_schema"] = "yes"; }),
            at + ".covers_schema");
}

TEST(WaveProtocol, WaveAnswerAndThePlanAnswersWaveReadBack) {
  WaveAnswer a;
  a.run_id = "uid-1";
  a.wave = WaveInfo{2, true, "no node left that could cut off"};
  a.select = {"fct_orders"};
  a.plan_json = R"({"entries":[]})";
  a.build = 2;
  a.reuse = 3;
  a.cut_off = 3;
  a.snapshot_id = "s-2";
  auto parsed = parse_wave_answer(to_json(a));
  ASSERT_TRUE(parsed) << parsed.error().field << ": " << parsed.error().message;
  EXPECT_EQ(parsed->wave.number, 2);
  EXPECT_TRUE(parsed->wave.last);
  EXPECT_EQ(parsed->wave.why, a.wave.why);
  EXPECT_EQ(parsed->select, a.select);
  EXPECT_EQ(parsed->cut_off, 3);
  EXPECT_EQ(parsed->snapshot_id, "s-2");
  auto bad = parse_wave_answer(edited(to_json(a), [](json& d) { d["wave"]["last"] = "yes"; }));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "wave.last");
  bad = parse_wave_answer(edited(to_json(a), [](json& d) { d["wave"]["wave_protocol"] = 9; }));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "wave.wave_protocol");
  bad = parse_wave_answer(edited(to_json(a), [](json& d) { d["counts"].erase("cut_off"); }));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "counts.cut_off");

  PlanAnswer plan{"uid-1", "shop/dev", R"({"entries":[]})", {"stg_orders"}, 1, 1, WaveInfo{1, false, "a boundary"}};
  auto p = parse_plan_answer(to_json(plan));
  ASSERT_TRUE(p);
  ASSERT_TRUE(p->wave);
  EXPECT_FALSE(p->wave->last);
  PlanAnswer one_wave{"uid-1", "shop/dev", R"({"entries":[]})", {"stg_orders"}, 1, 1};
  auto q = parse_plan_answer(to_json(one_wave));
  ASSERT_TRUE(q);
  EXPECT_FALSE(q->wave);  // an older controller's answer: one wave
}

TEST(WaveProtocol, CutoffAndContentsAreOptionalForOlderPodsAndChecked) {
  InputsRequest r;
  r.inputs = test_inputs();
  auto old_pod = parse_inputs_request(to_json(r));
  ASSERT_TRUE(old_pod);
  EXPECT_FALSE(old_pod->cutoff);
  r.cutoff = "always";
  auto asked = parse_inputs_request(to_json(r));
  ASSERT_TRUE(asked);
  EXPECT_EQ(asked->cutoff, "always");
  auto bad = parse_inputs_request(edited(to_json(r), [](json& d) { d["cutoff"] = "sometimes"; }));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "cutoff");

  ResultsRequest results;
  results.inputs = test_inputs();
  json without = json::parse(to_json(results));
  without.erase("node_contents");  // an older pod
  auto read = parse_results_request(without.dump());
  ASSERT_TRUE(read);
  EXPECT_TRUE(read->node_contents.empty());
  results.node_contents = {{testing::kStg, kContent}};
  read = parse_results_request(to_json(results));
  ASSERT_TRUE(read);
  EXPECT_EQ(read->node_contents.at(testing::kStg), kContent);
}

}  // namespace
}  // namespace ods::callback
