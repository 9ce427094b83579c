// The CallbackService on the PostgreSQL state store: results posted twice are recorded once,
// and a second service (a restarted controller: same key, same database, a new connection)
// records a run the first one planned.
#include <gtest/gtest.h>

#include "callback_fixture.h"
#include "ods/callback/callback_service.h"
#include "ods/callback/protocol.h"
#include "ods/state/stores.h"
#include "test_inputs.h"

namespace ods::testing {
namespace {

using callback::testing::kFct;
using callback::testing::kStg;

class ServiceOnPostgres : public ::testing::Test {
 protected:
  void SetUp() override {
    dsn = fresh_state_database();
    ASSERT_FALSE(dsn.empty());
    store = open();
    runs.add("team", "run-1", "uid-1");
  }
  std::unique_ptr<contracts::StateStore> open() {
    auto opened = state::open_postgres_store(dsn);
    EXPECT_TRUE(opened) << opened.error().message;
    return opened ? std::move(*opened) : nullptr;
  }
  std::unique_ptr<callback::CallbackService> service_on(contracts::StateStore& s) {
    return callback::make_callback_service(
        callback::CallbackDeps{*callback::RunTokens::from_key(kControllerKey), runs, log, s});
  }
  callback::CallbackResponse post_to(callback::CallbackService& service, const std::string& step,
                                     const std::string& body) {
    const std::string token = callback::RunTokens::from_key(kControllerKey)->token_for("team", "run-1", "uid-1");
    return service.handle({"POST", "/v1/runs/team/run-1/" + step, "Bearer " + token, body});
  }
  static planner::ProjectInputs inputs() {
    auto in = callback::testing::test_inputs();
    in.target = "";  // the runs of TestRuns build the default target
    return in;
  }
  static std::string inputs_body() {
    callback::InputsRequest r;
    r.inputs = inputs();
    return callback::to_json(r);
  }
  static std::string results_body() {
    callback::ResultsRequest r;
    r.inputs = inputs();
    callback::BuildReport b;
    b.results = callback::BuildResults{
        "inv",      "2099-01-01T00:00:01Z", "2099-01-01T00:00:09Z", {{kStg, "success"}, {kFct, "success"}}, {}, {}, {},
        "2 success"};
    r.build = b;
    return callback::to_json(r);
  }

  std::string dsn;
  TestRuns runs;
  PhaseLog log;
  std::unique_ptr<contracts::StateStore> store;
};

TEST_F(ServiceOnPostgres, ResultsPostedTwiceAreRecordedOnce) {
  auto service = service_on(*store);
  ASSERT_EQ(post_to(*service, "inputs", inputs_body()).status, 200);
  auto first = post_to(*service, "results", results_body());
  ASSERT_EQ(first.status, 200) << first.body;
  auto second = post_to(*service, "results", results_body());
  ASSERT_EQ(second.status, 200) << second.body;
  EXPECT_FALSE(callback::parse_recorded_answer(first.body)->already_recorded);
  EXPECT_TRUE(callback::parse_recorded_answer(second.body)->already_recorded);
  EXPECT_EQ(callback::parse_recorded_answer(second.body)->snapshot_id,
            callback::parse_recorded_answer(first.body)->snapshot_id);
  EXPECT_EQ(commits_of(*store, "uid-1"), 1u);
  EXPECT_EQ(recorded_runs(*store).size(), 1u);
}

TEST_F(ServiceOnPostgres, ANewControllerProcessRecordsWhatTheOldOnePlanned) {
  {
    auto old_service = service_on(*store);
    ASSERT_EQ(post_to(*old_service, "inputs", inputs_body()).status, 200);
  }
  store.reset();  // the old controller's connection goes too
  store = open();
  ASSERT_NE(store, nullptr);
  auto service = service_on(*store);
  auto recorded = post_to(*service, "results", results_body());
  ASSERT_EQ(recorded.status, 200) << recorded.body;
  EXPECT_EQ(callback::parse_recorded_answer(recorded.body)->outcome, "success");
  EXPECT_EQ(callback::parse_recorded_answer(recorded.body)->built, 2);
  EXPECT_EQ(post_to(*service, "results", results_body()).status, 200);
  EXPECT_EQ(commits_of(*store, "uid-1"), 1u);
  EXPECT_EQ(recorded_runs(*store).size(), 1u);
}

}  // namespace
}  // namespace ods::testing
