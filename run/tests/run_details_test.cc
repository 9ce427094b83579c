// The run ledger entry's details: what each writer sets reads back the same; history that
// isn't what this version writes reads leniently.
#include "ods/run/run_details.h"

#include <gtest/gtest.h>

namespace ods::run {
namespace {

using nlohmann::json;

TEST(RunDetails, StateRunDetailsReadBackAsWritten) {
  RunDetails d;
  d.recorded_by = "ods state run";
  d.summary = "2 success";
  d.counts = json{{"built", 2}, {"reused", 1}};
  d.timings = {{"compile", 1.5}, {"probe", 0.25}, {"plan", 0.01}};
  d.probe = ProbeDetails{"duckdb content", 0.2, {{"source.shop.raw.orders", 0.05}}, {"a warning"}};
  d.node_seconds = std::map<std::string, double>{{"model.shop.a", 0.5}};
  d.time_saved_seconds = 3.0;
  d.exact_evidence_seconds = std::map<std::string, double>{{"source.shop.raw.orders", 0.04}};
  d.exact_evidence_skipped = {"model.shop.a"};
  const std::string text = to_json(d);
  const RunDetails back = details_from_json(text);
  EXPECT_EQ(to_json(back), text);
  EXPECT_EQ(back.summary_line(), "2 success");
  ASSERT_TRUE(back.probe.has_value());
  EXPECT_EQ(back.probe->warnings, std::vector<std::string>{"a warning"});
  EXPECT_EQ(back.probe->source_seconds.at("source.shop.raw.orders"), 0.05);
  EXPECT_EQ(back.exact_evidence_skipped, std::vector<std::string>{"model.shop.a"});
  EXPECT_EQ(json::parse(text)["timings"]["compile"], 1.5);
  EXPECT_FALSE(json::parse(text).contains("head")) << "members not set are not written";
}

TEST(RunDetails, OperatorSummaryIsAnObjectAndItsMessageTheLine) {
  RunDetails d;
  d.recorded_by = "ods-operator";
  d.run_summary = json{{"message", "3 success"}, {"built", 3}};
  d.head = std::optional<std::string>();
  d.planned_entry = "uid-1/planned";
  const std::string text = to_json(d);
  EXPECT_TRUE(json::parse(text)["head"].is_null());
  const RunDetails back = details_from_json(text);
  EXPECT_EQ(back.summary_line(), "3 success");
  ASSERT_TRUE(back.head.has_value());
  EXPECT_FALSE(back.head->has_value());
  EXPECT_EQ(to_json(back), text);
}

TEST(RunDetails, OperatorWaveStateReadsBackAsWritten) {
  RunDetails d;
  d.recorded_by = "ods-operator";
  WaveDetails w;
  w.number = 2;
  w.last = false;
  w.why = "a boundary";
  w.mode = "always";
  w.extra_call_seconds = 3;
  w.building = {"model.shop.a"};
  w.held_back = {"model.shop.b"};
  w.built_earlier = {{"model.shop.c", true}};
  w.relations_exist = std::map<std::string, bool>{{"model.shop.a", true}};
  w.cut_off = 1;
  d.waves = w;
  const std::string text = to_json(d);
  EXPECT_EQ(json::parse(text)["waves"]["cut_off"], 1);
  const RunDetails back = details_from_json(text);
  ASSERT_TRUE(back.waves.has_value());
  EXPECT_EQ(back.waves->number, 2);
  EXPECT_FALSE(back.waves->last);
  EXPECT_EQ(back.waves->held_back, std::vector<std::string>{"model.shop.b"});
  EXPECT_EQ(back.waves->built_earlier, w.built_earlier);
  EXPECT_EQ(back.waves->relations_exist, w.relations_exist);
  EXPECT_EQ(back.waves->cut_off, 1);
  EXPECT_EQ(to_json(back), text);

  d.waves = WaveDetails{};  // wave 1: no cut_off yet, the pod's relations unknown
  const json first = json::parse(to_json(d))["waves"];
  EXPECT_FALSE(first.contains("cut_off"));
  EXPECT_TRUE(first["relations_exist"].is_null());
  EXPECT_FALSE(details_from_json(to_json(d)).waves->relations_exist.has_value());
}

TEST(RunDetails, UnreadableWaveStateReadsAsARunInOneWave) {
  EXPECT_FALSE(details_from_json(R"({"waves": {"last": false}})").waves) << "no number";
  EXPECT_FALSE(details_from_json(R"({"waves": {"number": 1}})").waves) << "no last";
  EXPECT_FALSE(details_from_json(R"({"waves": {"number": 1, "last": false, "building": "a"}})").waves);
  EXPECT_FALSE(details_from_json(R"({"waves": [1]})").waves);
  const auto lenient = details_from_json(R"({"waves": {"number": 2, "last": true, "cut_off": "x"}})").waves;
  ASSERT_TRUE(lenient.has_value());
  EXPECT_FALSE(lenient->cut_off.has_value()) << "a cut_off of the wrong type is only a count lost";
  EXPECT_EQ(lenient->mode, "auto");
}

TEST(RunDetails, UnreadableHistoryReadsAsEmptyOrUnset) {
  EXPECT_EQ(details_from_json("").recorded_by, "");
  EXPECT_EQ(details_from_json("not json").summary_line(), "");
  EXPECT_EQ(details_from_json("[1]").summary_line(), "");
  const RunDetails wrong = details_from_json(R"({"summary": 7, "seconds": "x", "node_seconds": [1], "head": 3,
                                                  "timings": {"compile": 1, "probe": "slow"}})");
  EXPECT_EQ(wrong.summary_line(), "");
  EXPECT_FALSE(wrong.seconds.has_value());
  EXPECT_FALSE(wrong.node_seconds.has_value());
  EXPECT_FALSE(wrong.head.has_value());
  EXPECT_EQ(wrong.timings, (std::map<std::string, double>{{"compile", 1.0}})) << "numbers only";
}

}  // namespace
}  // namespace ods::run
