// The CallbackService on the in-memory store: authentication, validation, order, planning,
// recording exactly once, and a new service (a restarted controller) finishing a run.
#include "ods/callback/callback_service.h"

#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "ods/base/iso8601.h"
#include "ods/callback/protocol.h"
#include "ods/state/stores.h"
#include "test_inputs.h"

namespace ods::callback {
namespace {

using nlohmann::json;
using testing::kFct;
using testing::kStg;
using testing::test_inputs;

const std::string kKey = "controller-key-for-tests";

class MapLookup final : public RunLookup {
 public:
  Result<std::optional<RunInfo>> find(const std::string& ns, const std::string& name) override {
    auto it = runs.find(ns + "/" + name);
    if (it == runs.end()) return std::optional<RunInfo>{};
    return std::optional<RunInfo>{it->second};
  }
  std::map<std::string, RunInfo> runs{{"team/run-1", {"uid-1", "shop", "dev", "shop/dev"}},
                                      {"team/run-2", {"uid-2", "shop", "dev", "shop/dev"}}};
};

class PhaseLog final : public RunListener {
 public:
  void on_phase(RunPhase phase, const RunSummary& summary) override {
    phases.push_back(to_string(phase));
    last = summary;
  }
  std::vector<std::string> phases;
  RunSummary last;
};

class CallbackServiceTest : public ::testing::Test {
 protected:
  std::unique_ptr<CallbackService> make_service() {
    return make_callback_service(CallbackDeps{*RunTokens::from_key(kKey), lookup_, listener_, *store_, clock_});
  }
  CallbackResponse post(const std::string& run, const std::string& step, const std::string& body,
                        std::optional<std::string> token = std::nullopt) {
    const auto slash = run.find('/');
    const RunInfo& info = lookup_.runs.at(run);
    if (!token) token = RunTokens::from_key(kKey)->token_for(run.substr(0, slash), run.substr(slash + 1), info.uid);
    return service_->handle({"POST", "/v1/runs/" + run + "/" + step, "Bearer " + *token, body});
  }
  static std::string inputs_body(const planner::ProjectInputs& inputs = test_inputs()) {
    InputsRequest r;
    r.inputs = inputs;
    r.relations_exist = std::map<std::string, bool>{{kStg, true}, {kFct, true}};
    return to_json(r);
  }
  static std::string results_body(std::map<std::string, std::string> status, int exit_code = 0,
                                  const planner::ProjectInputs& inputs = test_inputs()) {
    ResultsRequest r;
    r.inputs = inputs;
    BuildReport b;
    b.exit_code = exit_code;
    b.results = BuildResults{"inv", "2026-11-30T02:00:01Z", "2026-11-30T02:00:09Z", std::move(status), {}, {}, {}, ""};
    r.build = b;
    return to_json(r);
  }
  std::size_t ledger_size() { return store_->runs("shop/dev", 0)->size(); }
  std::size_t snapshots() { return store_->history("shop/dev", 0)->size(); }

  const FixedClock clock_{TimePoint(std::chrono::microseconds(*parse_iso8601_micros("2026-11-30T02:00:00Z")))};
  MapLookup lookup_;
  PhaseLog listener_;
  std::unique_ptr<contracts::StateStore> store_ = state::make_memory_store();
  std::unique_ptr<CallbackService> service_ = make_service();
};

json body_of(const CallbackResponse& r) { return json::parse(r.body); }

TEST_F(CallbackServiceTest, PlansThenRecordsARun) {
  auto planned = post("team/run-1", "inputs", inputs_body());
  ASSERT_EQ(planned.status, 200) << planned.body;
  auto plan = parse_plan_answer(planned.body);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->run_id, "uid-1");
  EXPECT_EQ(plan->build, 2);
  // Both of the project's models build: dbt is given their type, not their names (run::build_selection).
  EXPECT_EQ(plan->select, std::vector<std::string>{"resource_type:model"});
  EXPECT_EQ(listener_.phases, (std::vector<std::string>{"Planning", "Building"}));
  EXPECT_EQ(listener_.last.build_reasons.at("never_built"), 2);
  // Its one source by exactness, every label there (the operator's ods_run_sources).
  EXPECT_EQ(listener_.last.sources_by_exactness,
            (std::map<std::string, int>{{"exact", 1}, {"semantic", 0}, {"proxy", 0}, {"inferred", 0}, {"unknown", 0}}));
  EXPECT_EQ(ledger_size(), 1u);  // the planned entry
  EXPECT_EQ(snapshots(), 0u);

  auto recorded = post("team/run-1", "results", results_body({{kStg, "success"}, {kFct, "success"}}));
  ASSERT_EQ(recorded.status, 200) << recorded.body;
  auto answer = parse_recorded_answer(recorded.body);
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->outcome, "success");
  EXPECT_EQ(answer->built, 2);
  EXPECT_FALSE(answer->already_recorded);
  EXPECT_EQ(snapshots(), 1u);
  EXPECT_EQ(store_->latest("shop/dev")->value().run_id, "uid-1");
  EXPECT_EQ(listener_.phases.back(), "Succeeded");

  // The next run, with the same data observed since, reuses everything and builds nothing.
  const auto later = test_inputs("v1", "2026-11-30T03:00:00Z");
  auto second = post("team/run-2", "inputs", inputs_body(later));
  ASSERT_EQ(second.status, 200) << second.body;
  EXPECT_EQ(parse_plan_answer(second.body)->build, 0) << second.body;
  EXPECT_TRUE(parse_plan_answer(second.body)->select.empty());
  ResultsRequest none;
  none.inputs = later;
  auto reused = post("team/run-2", "results", to_json(none));
  ASSERT_EQ(reused.status, 200) << reused.body;
  EXPECT_EQ(parse_recorded_answer(reused.body)->outcome, "reused");
  EXPECT_EQ(snapshots(), 1u);  // nothing changed
}

TEST_F(CallbackServiceTest, RefusesWithoutTheRunsOwnTokenAndChangesNothing) {
  const std::string other = RunTokens::from_key(kKey)->token_for("team", "run-2", "uid-2");
  auto refused = post("team/run-1", "inputs", inputs_body(), other);
  EXPECT_EQ(refused.status, 401);
  EXPECT_EQ(body_of(refused)["error"]["code"], "unauthorized");
  auto no_header = service_->handle({"POST", "/v1/runs/team/run-1/inputs", "", inputs_body()});
  EXPECT_EQ(no_header.status, 401);
  EXPECT_EQ(ledger_size(), 0u);
  EXPECT_TRUE(listener_.phases.empty());
}

TEST_F(CallbackServiceTest, UnknownRunsAndPathsAre404) {
  auto unknown = service_->handle({"POST", "/v1/runs/team/nope/inputs", "Bearer x", inputs_body()});
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(body_of(unknown)["error"]["code"], "unknown_run");
  EXPECT_EQ(service_->handle({"POST", "/v1/runs/team/run-1/other", "Bearer x", ""}).status, 404);
  EXPECT_EQ(service_->handle({"GET", "/v1/runs/team/run-1/inputs", "Bearer x", ""}).status, 405);
}

TEST_F(CallbackServiceTest, MalformedOrForeignInputsAre400NamingTheFieldAndChangeNothing) {
  json doc = json::parse(inputs_body());
  doc["probe"].erase("strategy");
  auto malformed = post("team/run-1", "inputs", doc.dump());
  EXPECT_EQ(malformed.status, 400);
  EXPECT_EQ(body_of(malformed)["error"]["field"], "probe.strategy");
  auto other_project = test_inputs();
  other_project.project = "jaffle";
  auto foreign = post("team/run-1", "inputs", inputs_body(other_project));
  EXPECT_EQ(foreign.status, 400);
  EXPECT_EQ(body_of(foreign)["error"]["field"], "inputs.project");
  EXPECT_EQ(ledger_size(), 0u);
}

TEST_F(CallbackServiceTest, OutOfOrderRequestsAre409) {
  auto early = post("team/run-1", "results", results_body({{kStg, "success"}}));
  EXPECT_EQ(early.status, 409);
  EXPECT_EQ(body_of(early)["error"]["code"], "not_planned");
  ASSERT_EQ(post("team/run-1", "inputs", inputs_body()).status, 200);
  // The same inputs again get the same plan; other inputs are refused.
  auto again = post("team/run-1", "inputs", inputs_body());
  EXPECT_EQ(again.status, 200);
  EXPECT_EQ(parse_plan_answer(again.body)->build, 2);
  auto changed = post("team/run-1", "inputs", inputs_body(test_inputs("v2")));
  EXPECT_EQ(changed.status, 409);
  auto wrong_results = post("team/run-1", "results", results_body({{kStg, "success"}}, 0, test_inputs("v2")));
  EXPECT_EQ(wrong_results.status, 409);
  EXPECT_EQ(body_of(wrong_results)["error"]["field"], "inputs");
  EXPECT_EQ(ledger_size(), 1u);
  EXPECT_EQ(snapshots(), 0u);
}

TEST_F(CallbackServiceTest, ResultsPostedTwiceAreRecordedOnce) {
  ASSERT_EQ(post("team/run-1", "inputs", inputs_body()).status, 200);
  const std::string results = results_body({{kStg, "success"}, {kFct, "success"}});
  auto first = post("team/run-1", "results", results);
  ASSERT_EQ(first.status, 200) << first.body;
  auto second = post("team/run-1", "results", results);
  ASSERT_EQ(second.status, 200) << second.body;
  EXPECT_TRUE(parse_recorded_answer(second.body)->already_recorded);
  EXPECT_EQ(parse_recorded_answer(second.body)->snapshot_id, parse_recorded_answer(first.body)->snapshot_id);
  EXPECT_EQ(snapshots(), 1u);
  EXPECT_EQ(ledger_size(), 2u);                                        // planned + recorded
  EXPECT_EQ(post("team/run-1", "inputs", inputs_body()).status, 409);  // the run is over
}

TEST_F(CallbackServiceTest, ARestartedControllerRecordsTheResultsOfARunPlannedBeforeIt) {
  ASSERT_EQ(post("team/run-1", "inputs", inputs_body()).status, 200);
  service_ = make_service();  // the old one is gone with everything it held in memory
  auto recorded = post("team/run-1", "results", results_body({{kStg, "success"}, {kFct, "success"}}));
  ASSERT_EQ(recorded.status, 200) << recorded.body;
  EXPECT_EQ(parse_recorded_answer(recorded.body)->built, 2);
  EXPECT_EQ(snapshots(), 1u);
}

TEST_F(CallbackServiceTest, AFailedNodeKeepsItsLastStateAndBuildsNextTime) {
  ASSERT_EQ(post("team/run-1", "inputs", inputs_body()).status, 200);
  auto partial = post("team/run-1", "results", results_body({{kStg, "success"}, {kFct, "error"}}, 1));
  ASSERT_EQ(partial.status, 200) << partial.body;
  EXPECT_EQ(parse_recorded_answer(partial.body)->outcome, "partial");
  EXPECT_EQ(listener_.phases.back(), "Failed");
  auto next = post("team/run-2", "inputs", inputs_body(test_inputs("v1", "2026-11-30T03:00:00Z")));
  ASSERT_EQ(next.status, 200);
  EXPECT_EQ(parse_plan_answer(next.body)->select, std::vector<std::string>{"fct_orders"});
}

}  // namespace
}  // namespace ods::callback

namespace ods::callback {
namespace {

// The head step (the pod's parse fast path): the scope and its head, nothing before the first
// recorded run, the recorded snapshot after it; any time, nothing written; the run's own token only.
TEST_F(CallbackServiceTest, TheHeadStepAnswersTheScopesRecordedStateAndWritesNothing) {
  auto empty = post("team/run-1", "head", to_json(HeadRequest{}));
  ASSERT_EQ(empty.status, 200) << empty.body;
  auto none = parse_head_answer(empty.body);
  ASSERT_TRUE(none) << none.error().field << ": " << none.error().message;
  EXPECT_EQ(none->scope, "shop/dev");
  EXPECT_FALSE(none->snapshot_id);
  EXPECT_FALSE(none->snapshot);
  EXPECT_EQ(ledger_size(), 0u);

  ASSERT_EQ(post("team/run-1", "inputs", inputs_body()).status, 200);
  ASSERT_EQ(post("team/run-1", "results", results_body({{kStg, "success"}, {kFct, "success"}})).status, 200);
  auto answered = post("team/run-2", "head", to_json(HeadRequest{}));
  ASSERT_EQ(answered.status, 200) << answered.body;
  auto head = parse_head_answer(answered.body);
  ASSERT_TRUE(head) << head.error().field << ": " << head.error().message;
  EXPECT_EQ(head->snapshot_id, store_->latest("shop/dev")->value().id);
  ASSERT_TRUE(head->snapshot);
  EXPECT_EQ(head->snapshot->run_id, "uid-1");
  EXPECT_TRUE(head->snapshot->nodes.contains(kStg));
  EXPECT_EQ(snapshots(), 1u);

  EXPECT_EQ(post("team/run-2", "head", to_json(HeadRequest{}), "not-the-token").status, 401);
  EXPECT_EQ(post("team/run-2", "head", R"({"protocol": 99})").status, 400);
}

}  // namespace
}  // namespace ods::callback
