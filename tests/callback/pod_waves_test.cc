// Early cutoff through the callback protocol (docs/early-cutoff.md, "In the operator"):
// `ods pod` with real dbt on a copy of examples/shop (DuckDB), the state in a real PostgreSQL,
// the callback server in this process. The pod reports each wave, the controller records it
// and answers the next selection. The operator's part beyond this server is the DbtProject's
// runnerPodTemplate env reaching the Job (RunReconciler's unit tests) and the run summary
// becoming the DbtRun's status (run_phase_writer_test): the pod here gets $ODS_CUTOFF as the
// runner pod does, and the summary the listener gets is checked.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "callback_fixture.h"
#include "ods/callback/protocol.h"
#include "ods/callback/run_token.h"
#include "ods/planner/json_io.h"
#include "ods/state/stores.h"
#include "test_inputs.h"

namespace ods::testing {
namespace {

using nlohmann::json;

class PodWaves : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string dsn = fresh_state_database();
    ASSERT_FALSE(dsn.empty());
    auto opened = state::open_postgres_store(dsn);
    ASSERT_TRUE(opened) << opened.error().message;
    store = std::move(*opened);
    server = start_test_server(runs, log, *store);
    ASSERT_NE(server, nullptr);
  }

  planner::StateSnapshot head() {
    auto latest = store->latest("shop/default");
    EXPECT_TRUE(latest && *latest);
    auto snapshot = planner::snapshot_from_json((*latest)->document);
    EXPECT_TRUE(snapshot) << (snapshot ? "" : snapshot.error().message);
    return snapshot ? *snapshot : planner::StateSnapshot{};
  }

  // The first reason code of each entry of the plan kept in ledger entry `run_id`, by name.
  std::map<std::string, std::string> first_reasons(const std::string& run_id) {
    std::map<std::string, std::string> out;
    auto recorded = recorded_runs(*store);
    EXPECT_TRUE(recorded.contains(run_id)) << run_id;
    if (!recorded.contains(run_id)) return out;
    const json plan = json::parse(recorded[run_id].plan);
    for (const auto& e : plan.at("entries"))
      out[e.at("name").get<std::string>()] =
          e.at("action").get<std::string>() + ":" + e.at("reasons").at(0).at("code").get<std::string>();
    EXPECT_FALSE(out.empty()) << run_id << ": " << recorded[run_id].plan.substr(0, 600);
    return out;
  }

  std::vector<std::string> phases_of(const std::string& uid) {
    std::vector<std::string> out;
    for (const auto& [phase, summary] : log.phases())
      if (summary.run_uid == uid) out.push_back(phase);
    return out;
  }
  // The summary of run uid `uid`'s last phase: what the operator writes to the DbtRun's status.
  callback::RunSummary last_summary_of(const std::string& uid) {
    callback::RunSummary last;
    for (const auto& [phase, summary] : log.phases())
      if (summary.run_uid == uid) last = summary;
    return last;
  }

  TestRuns runs;
  PhaseLog log;
  std::unique_ptr<contracts::StateStore> store;
  std::unique_ptr<callback::CallbackServer> server;
};

const std::string kStgOrders = "model.shop.stg_orders";

// Three runs: everything built (one wave, contents recorded); a change stg_orders normalises
// away (its readers cut off, orders_daily built in wave 2 for its own incremental SQL, which
// changes after its first build); new orders, which alter stg_orders' output (readers built).
TEST_F(PodWaves, AWaveWhoseStagingOutputIsUnchangedSparesItsReadersAndAChangedOneBuildsThem) {
  auto p = shop_project();
  runs.add("team", "w-1", "uid-w-1");
  ProcessResult first = run_pod(*p, *server, "team", "w-1", "uid-w-1");
  ASSERT_EQ(first.exit_code, 0) << first.output << first.errors;
  const auto settled = head();
  ASSERT_TRUE(settled.nodes.at(kStgOrders).content) << "the one-wave run recorded no content";
  EXPECT_EQ(settled.nodes.at("model.shop.fct_orders").parent_contents.at(kStgOrders),
            *settled.nodes.at(kStgOrders).content);

  ProcessResult changed = p->sql("update raw.orders set status = upper(status) where order_id <= 5");
  ASSERT_EQ(changed.exit_code, 0) << changed.output << changed.errors;
  runs.add("team", "w-2", "uid-w-2");
  // As a runner pod gets it from spec.runnerPodTemplate.env (docs/early-cutoff.md).
  p->add_env({"ODS_CUTOFF=always"});
  ProcessResult second = run_pod(*p, *server, "team", "w-2", "uid-w-2");
  ASSERT_EQ(second.exit_code, 0) << second.output << second.errors;
  EXPECT_NE(second.output.find("reporting wave 1"), std::string::npos) << second.output;
  EXPECT_NE(second.output.find("held-back nodes reused; wave 2 builds the rest"), std::string::npos) << second.output;
  auto reasons = first_reasons("uid-w-2");
  EXPECT_EQ(reasons["stg_orders"], "build:new_upstream_data");
  EXPECT_EQ(reasons["fct_orders"], "reuse:early_cutoff");
  EXPECT_EQ(reasons["orders_daily"].rfind("build:", 0), 0u) << reasons["orders_daily"];
  EXPECT_EQ(reasons["stg_customers"], "reuse:unchanged");
  // The summary of the whole run as re-planned (the DbtRun's status.plan): the cut-off readers
  // counted as early_cutoff, stg_orders the one node built for new data.
  auto summary = last_summary_of("uid-w-2");
  EXPECT_GE(summary.reuse_reasons["early_cutoff"], 1);
  EXPECT_EQ(summary.build_reasons["new_upstream_data"], 1);
  auto recorded = recorded_runs(*store);
  EXPECT_EQ(recorded["uid-w-2.wave1"].outcome, "success");
  EXPECT_EQ(recorded["uid-w-2"].outcome, "success");
  EXPECT_EQ(commits_of(*store, "uid-w-2.wave1"), 1u);
  EXPECT_EQ(commits_of(*store, "uid-w-2"), 1u);  // wave 2, reported as the run's results
  EXPECT_EQ(phases_of("uid-w-2"),
            (std::vector<std::string>{"Planning", "Building", "Building", "Recording", "Succeeded"}));
  const auto cut = head();
  const auto& stg = cut.nodes.at(kStgOrders);
  EXPECT_EQ(stg.run_id, "uid-w-2.wave1");
  EXPECT_EQ(stg.content, settled.nodes.at(kStgOrders).content);  // the output is unchanged
  ASSERT_TRUE(stg.content);
  EXPECT_EQ(stg.content->origin, "duckdb_content");
  EXPECT_EQ(cut.nodes.at("model.shop.fct_orders").run_id, "uid-w-1");
  EXPECT_EQ(cut.nodes.at("model.shop.fct_orders").parent_contents.at(kStgOrders), *stg.content);
  EXPECT_EQ(cut.nodes.at("model.shop.orders_daily").run_id, "uid-w-2");
  EXPECT_EQ(cut.nodes.at("model.shop.orders_daily").parent_contents.at(kStgOrders), *stg.content);

  // New orders alter stg_orders' output: a later wave builds its readers, recorded as read.
  ProcessResult appended = p->generate_data({"--append-orders", "5"});
  ASSERT_EQ(appended.exit_code, 0) << appended.errors;
  runs.add("team", "w-3", "uid-w-3");
  ProcessResult third = run_pod(*p, *server, "team", "w-3", "uid-w-3", {"--cutoff", "always"});
  ASSERT_EQ(third.exit_code, 0) << third.output << third.errors;
  EXPECT_NE(third.output.find("wave 2 builds the rest"), std::string::npos) << third.output;
  reasons = first_reasons("uid-w-3");
  EXPECT_EQ(reasons["fct_orders"], "build:new_upstream_data");
  EXPECT_EQ(reasons["orders_daily"], "build:new_upstream_data");
  const auto rebuilt = head();
  EXPECT_EQ(rebuilt.nodes.at(kStgOrders).run_id, "uid-w-3.wave1");
  EXPECT_NE(rebuilt.nodes.at(kStgOrders).content, settled.nodes.at(kStgOrders).content);
  const auto& fct = rebuilt.nodes.at("model.shop.fct_orders");
  EXPECT_EQ(fct.run_id.rfind("uid-w-3", 0), 0u) << fct.run_id;  // wave 2 or the last wave
  EXPECT_EQ(fct.parent_contents.at(kStgOrders), *rebuilt.nodes.at(kStgOrders).content);
  EXPECT_EQ(recorded_runs(*store)["uid-w-3"].outcome, "success");
}

TEST_F(PodWaves, WaveReportsThatDoNotFitTheRunAreRefusedAndChangeNothing) {
  using callback::testing::test_inputs;
  runs.add("team", "one", "uid-one");
  auto tokens = callback::RunTokens::from_key(kControllerKey);
  const std::string token = tokens->token_for("team", "one", "uid-one");
  callback::WaveReport report;
  report.inputs = test_inputs();
  report.inputs.project = "shop";
  report.inputs.target = "";
  report.build.results =
      callback::BuildResults{"inv", "2026-11-30T01:00:00Z", "2026-11-30T01:00:01Z", {}, {}, {}, {}, ""};
  auto [before_plan, before_body] = post(*server, "team/one", "wave", token, callback::to_json(report));
  EXPECT_EQ(before_plan, 409) << before_body;
  EXPECT_EQ(json::parse(before_body)["error"]["code"], "not_planned") << before_body;

  callback::InputsRequest inputs;  // planned in one wave: an older pod's inputs (no cutoff)
  inputs.inputs = report.inputs;
  auto [planned, planned_body] = post(*server, "team/one", "inputs", token, callback::to_json(inputs));
  ASSERT_EQ(planned, 200) << planned_body;
  auto plan = callback::parse_plan_answer(planned_body);
  ASSERT_TRUE(plan);
  EXPECT_FALSE(plan->wave);  // no waves for a pod that did not ask
  auto [one_wave, one_wave_body] = post(*server, "team/one", "wave", token, callback::to_json(report));
  EXPECT_EQ(one_wave, 409) << one_wave_body;
  EXPECT_EQ(json::parse(one_wave_body)["error"]["code"], "not_in_waves") << one_wave_body;
  report.wave = 2;
  auto [skipped, skipped_body] = post(*server, "team/one", "wave", token, callback::to_json(report));
  EXPECT_EQ(skipped, 409) << skipped_body;
  EXPECT_EQ(json::parse(skipped_body)["error"]["field"], "wave") << skipped_body;
  json bad = json::parse(callback::to_json(report));
  bad["node_contents"] = {{kStgOrders, {{"value", "x"}, {"exactness", "surely"}, {"origin", "o"}}}};
  auto [malformed, malformed_body] = post(*server, "team/one", "wave", token, bad.dump());
  EXPECT_EQ(malformed, 400) << malformed_body;
  EXPECT_EQ(json::parse(malformed_body)["error"]["field"], "node_contents." + kStgOrders + ".exactness");
  auto [stolen, stolen_body] = post(*server, "team/one", "wave", "not-the-token", callback::to_json(report));
  EXPECT_EQ(stolen, 401) << stolen_body;

  EXPECT_TRUE(store->history("shop/default", 0)->empty());
  EXPECT_TRUE(recorded_runs(*store).empty());  // only the planned entry
}

}  // namespace
}  // namespace ods::testing
