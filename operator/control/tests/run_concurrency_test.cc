// One run of a project at a time (run_concurrency.h) on the fake client: under Forbid a second
// run waits until the first has ended and its Job too, under Replace the newest run fails the
// older ones and starts once their Jobs are gone, under Allow both start; runs of other
// projects never count.
#include <gtest/gtest.h>

#include "ods/control/run_reconciler.h"
#include "reconciler_world.h"
#include "test_objects.h"

namespace ods::control {
namespace {

using testing::any_token;
using testing::manual_run;
using testing::ReconcilerWorld;
using testing::shop_project;
using testing::store;
namespace res = kube::resources;

Json run_created_at(const std::string& name, const std::string& created, const std::string& project = "shop") {
  Json run = manual_run(name, project);
  run["metadata"]["creationTimestamp"] = created;
  return run;
}

class RunConcurrencyTest : public ::testing::Test, protected ReconcilerWorld {
 protected:
  // The project with `policy`, run 1 and (unless `second` is false) the newer run 2.
  void use_policy(const std::string& policy, bool second = true) {
    Json project = shop_project("");
    project["spec"]["policies"]["concurrency"] = policy;
    store(client_, res::kDbtProjects, project);
    store(client_, res::kDbtRuns, run_created_at("shop-run-1", "2026-03-01T12:00:00Z"));
    if (second) create_second_run();
  }
  void create_second_run() { store(client_, res::kDbtRuns, run_created_at("shop-run-2", "2026-03-01T12:00:05Z")); }
  Result<ReconcileResult> reconcile(const std::string& name) { return reconciler_.reconcile({"ns", name}); }
  Json status(const std::string& name) { return client_.get(res::kDbtRuns, {"ns", name})->value("status", Json()); }
  bool has_job(const std::string& name) {
    auto found = client_.find(res::kJobs, {"ns", name});
    return found && found->has_value();
  }
  int events_with_reason(const std::string& reason) {
    int count = 0;
    for (const Json& event : client_.objects(kCoreEvents, "ns")) count += event["reason"] == reason;
    return count;
  }
  void finish(const std::string& run, const Json& job_conditions) {
    ASSERT_TRUE(client_.merge_patch(res::kDbtRuns, {"ns", run}, {{"status", {{"phase", "Succeeded"}}}},
                                    kube::Subresource::status));
    if (!job_conditions.is_null()) {
      ASSERT_TRUE(client_.merge_patch(res::kJobs, {"ns", run}, {{"status", {{"conditions", job_conditions}}}},
                                      kube::Subresource::status));
    }
  }

  DbtRunReconciler reconciler_{client_, clock_, events_, any_token,
                               RunJobOptions{.callback_url = "https://ods.ods-system.svc:8081"}};
};

TEST_F(RunConcurrencyTest, UnderForbidTheNewerRunWaitsForTheOlderRunAndItsJob) {
  use_policy("Forbid");
  // The newer run is reconciled first: it waits for the older one, even before that started.
  auto waiting = reconcile("shop-run-2");
  ASSERT_TRUE(waiting) << waiting.error().message;
  EXPECT_EQ(waiting->requeue_after, kWaitRecheck);
  EXPECT_FALSE(has_job("shop-run-2"));
  EXPECT_EQ(status("shop-run-2")["phase"], "Pending");
  EXPECT_EQ(status("shop-run-2")["reason"], "WaitingForRun");
  EXPECT_NE(status("shop-run-2")["message"].get<std::string>().find("waiting for DbtRun shop-run-1"), std::string::npos)
      << status("shop-run-2").dump();
  ASSERT_TRUE(reconcile("shop-run-1"));
  EXPECT_TRUE(has_job("shop-run-1"));
  ASSERT_TRUE(reconcile("shop-run-2"));
  ASSERT_TRUE(reconcile("shop-run-2"));
  EXPECT_FALSE(has_job("shop-run-2"));
  EXPECT_EQ(events_with_reason("RunWaiting"), 1) << "one Event for one wait";
  // The older run has finished but its Job has not ended: still one pod at a time.
  finish("shop-run-1", nullptr);
  ASSERT_TRUE(reconcile("shop-run-2"));
  EXPECT_FALSE(has_job("shop-run-2"));
  EXPECT_NE(status("shop-run-2")["message"].get<std::string>().find("runner Job shop-run-1 of run shop-run-1"),
            std::string::npos)
      << status("shop-run-2").dump();
  finish("shop-run-1", Json::array({{{"type", "Complete"}, {"status", "True"}}}));
  auto started = reconcile("shop-run-2");
  ASSERT_TRUE(started) << started.error().message;
  EXPECT_TRUE(has_job("shop-run-2"));
  EXPECT_EQ(status("shop-run-2")["reason"], "JobCreated");
}

TEST_F(RunConcurrencyTest, UnderReplaceTheNewestRunFailsTheOlderAndStartsWhenItsJobIsGone) {
  use_policy("Replace", false);
  ASSERT_TRUE(reconcile("shop-run-1"));
  ASSERT_TRUE(has_job("shop-run-1"));
  create_second_run();  // while run 1 runs
  auto replacing = reconcile("shop-run-2");
  ASSERT_TRUE(replacing) << replacing.error().message;
  EXPECT_EQ(status("shop-run-1")["phase"], "Failed");
  EXPECT_EQ(status("shop-run-1")["reason"], "Replaced");
  EXPECT_NE(status("shop-run-1")["message"].get<std::string>().find("shop-run-2"), std::string::npos);
  EXPECT_FALSE(has_job("shop-run-1"));
  EXPECT_FALSE(has_job("shop-run-2")) << "it starts on the next look, once the old Job is gone";
  EXPECT_EQ(status("shop-run-2")["reason"], "WaitingForRun");
  ASSERT_TRUE(reconcile("shop-run-2"));
  EXPECT_TRUE(has_job("shop-run-2"));
  // An older run that has not started yet finds the newer one and steps aside.
  store(client_, res::kDbtRuns, run_created_at("shop-run-0", "2026-03-01T11:00:00Z"));
  ASSERT_TRUE(reconcile("shop-run-0"));
  EXPECT_EQ(status("shop-run-0")["phase"], "Failed");
  EXPECT_EQ(status("shop-run-0")["reason"], "Replaced");
  EXPECT_FALSE(has_job("shop-run-0"));
  EXPECT_TRUE(has_job("shop-run-2"));
}

TEST_F(RunConcurrencyTest, UnderAllowBothRunsStartAtOnce) {
  use_policy("Allow");
  ASSERT_TRUE(reconcile("shop-run-2"));
  ASSERT_TRUE(reconcile("shop-run-1"));
  EXPECT_TRUE(has_job("shop-run-1"));
  EXPECT_TRUE(has_job("shop-run-2"));
}

TEST_F(RunConcurrencyTest, RunsOfAnotherProjectDoNotCount) {
  use_policy("Forbid");
  Json other = shop_project("");
  other["metadata"]["name"] = "billing";
  store(client_, res::kDbtProjects, other);
  store(client_, res::kDbtRuns, run_created_at("billing-run-1", "2026-03-01T11:00:00Z", "billing"));
  ASSERT_TRUE(reconcile("billing-run-1"));
  ASSERT_TRUE(reconcile("shop-run-1"));
  EXPECT_TRUE(has_job("billing-run-1"));
  EXPECT_TRUE(has_job("shop-run-1"));
}

}  // namespace
}  // namespace ods::control
