#include "ods/control/project_reconciler.h"

#include <gtest/gtest.h>

#include "ods/control/conditions.h"
#include "ods/control/time_text.h"
#include "reconciler_world.h"
#include "test_objects.h"

namespace ods::control {
namespace {

using namespace std::chrono_literals;
using testing::manual_run;
using testing::ReconcilerWorld;
using testing::shop_project;
using testing::store;
namespace res = kube::resources;

class ProjectReconcilerTest : public ::testing::Test, protected ReconcilerWorld {
 protected:
  Result<ReconcileResult> reconcile() { return reconciler_.reconcile({"ns", "shop"}); }
  void at(const char* time) { clock_.set(*parse_time(time)); }
  Json project() { return *client_.get(res::kDbtProjects, {"ns", "shop"}); }
  // A copy of the project's condition of `type`, null when absent.
  Json condition(std::string_view type) {
    const Json conditions = project()["status"].value("conditions", Json());
    const Json* found = find_condition(conditions, type);
    return found == nullptr ? Json() : *found;
  }
  std::vector<Json> runs() { return client_.objects(res::kDbtRuns, "ns"); }
  int events_with_reason(const std::string& reason) {
    int count = 0;
    for (const Json& event : client_.objects(kCoreEvents, "ns")) count += event["reason"] == reason;
    return count;
  }
  Json finished_run(const std::string& name, const std::string& phase, const char* completed, int built, int reused) {
    Json run = manual_run(name);
    run["status"] = {{"phase", phase},
                     {"completionTime", completed},
                     {"reason", phase == "Failed" ? "DeadlineExceeded" : "Succeeded"},
                     {"message", phase == "Failed" ? "the pod ran too long" : "ok"},
                     {"plan", {{"built", built}, {"reused", reused}}}};
    return run;
  }

  DbtProjectReconciler reconciler_{client_, clock_, events_};
};

TEST_F(ProjectReconcilerTest, AProjectThatNeverRanIsBuiltAtOnceThenOnItsSchedule) {
  store(client_, res::kDbtProjects, shop_project());
  at("2026-03-02T05:00:20Z");
  auto result = reconcile();
  ASSERT_TRUE(result) << result.error().message;
  ASSERT_EQ(runs().size(), 1u);
  EXPECT_EQ(runs()[0]["metadata"]["name"], "shop-29540460");  // named after this minute
  EXPECT_EQ(runs()[0]["spec"]["trigger"], "Schedule");
  EXPECT_EQ(project()["status"]["lastScheduleTime"], "2026-03-02T05:00:20Z");
  EXPECT_EQ(result->requeue_after, std::chrono::milliseconds(59min + 40s));
  ASSERT_TRUE(reconcile());  // again: the run exists, no second one
  EXPECT_EQ(runs().size(), 1u);
}

TEST_F(ProjectReconcilerTest, NotDueYetCreatesNoRunAndWakesAtTheNextTick) {
  Json ran_before = shop_project();
  ran_before["status"] = {{"lastScheduleTime", "2026-03-01T06:00:00Z"}};
  store(client_, res::kDbtProjects, ran_before);
  at("2026-03-02T05:00:00Z");
  auto result = reconcile();
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_TRUE(runs().empty());
  EXPECT_EQ(result->requeue_after, std::chrono::milliseconds(1h));
  const Json status = project()["status"];
  EXPECT_EQ(status["observedGeneration"], 1);
  const Json ready = condition("Ready");
  ASSERT_TRUE(ready.is_object());
  EXPECT_EQ(ready["status"], "True");
  EXPECT_EQ(ready["reason"], "Scheduled");
  EXPECT_EQ(ready["message"], "next run at 2026-03-02T06:00:00Z");
  EXPECT_EQ(ready["observedGeneration"], 1);
  EXPECT_TRUE(condition("Stalled").is_null());
  EXPECT_TRUE(condition("Reconciling").is_null());
}

TEST_F(ProjectReconcilerTest, ADueScheduleCreatesOneOwnedRunOnce) {
  const Json stored = store(client_, res::kDbtProjects, shop_project());
  at("2026-03-02T06:00:30Z");
  auto result = reconcile();
  ASSERT_TRUE(result) << result.error().message;
  ASSERT_EQ(runs().size(), 1u);
  const Json run = runs()[0];
  EXPECT_EQ(run["metadata"]["name"], "shop-29540520");  // minutes since the epoch of the tick
  EXPECT_EQ(run["metadata"]["labels"]["ods.dev/project"], "shop");
  EXPECT_EQ(run["spec"]["projectRef"]["name"], "shop");
  EXPECT_EQ(run["spec"]["trigger"], "Schedule");
  const Json owner = run["metadata"]["ownerReferences"][0];
  EXPECT_EQ(owner["kind"], "DbtProject");
  EXPECT_EQ(owner["name"], "shop");
  EXPECT_EQ(owner["uid"], stored["metadata"]["uid"]);
  EXPECT_EQ(owner["controller"], true);
  EXPECT_EQ(project()["status"]["lastScheduleTime"], "2026-03-02T06:00:30Z");
  EXPECT_EQ(result->requeue_after, std::chrono::milliseconds(24h - 30s));
  EXPECT_EQ(events_with_reason("RunCreated"), 1);
  const Json reconciling = condition("Reconciling");
  ASSERT_TRUE(reconciling.is_object());
  EXPECT_EQ(reconciling["message"], "run shop-29540520 is Pending");

  clock_.advance(5s);
  ASSERT_TRUE(reconcile());
  EXPECT_EQ(runs().size(), 1u);
  EXPECT_EQ(events_with_reason("RunCreated"), 1);
}

TEST_F(ProjectReconcilerTest, MissedWindowsRunOnceNotOncePerTick) {
  Json missed = shop_project("*/10 * * * *");
  missed["status"] = {{"lastScheduleTime", "2026-02-20T06:00:30Z"}};
  store(client_, res::kDbtProjects, missed);
  at("2026-03-02T10:03:00Z");
  auto result = reconcile();
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(runs().size(), 1u);
  EXPECT_EQ(project()["status"]["lastScheduleTime"], "2026-03-02T10:03:00Z");
  EXPECT_EQ(result->requeue_after, std::chrono::milliseconds(7min));
}

TEST_F(ProjectReconcilerTest, ARestartedOperatorFindsTheRunItCreatedBeforeWritingStatus) {
  store(client_, res::kDbtProjects, shop_project());
  at("2026-03-02T06:00:30Z");
  Json earlier = manual_run("shop-29540520");
  earlier["spec"]["trigger"] = "Schedule";
  store(client_, res::kDbtRuns, earlier);  // created by the previous operator, which then died
  Json finished_status = {{"phase", "Succeeded"}, {"completionTime", "2026-03-02T06:00:20Z"}};
  client_.merge_patch(res::kDbtRuns, {"ns", "shop-29540520"}, {{"status", finished_status}}, kube::Subresource::status);
  auto result = reconcile();
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(runs().size(), 1u);
  EXPECT_EQ(project()["status"]["lastScheduleTime"], "2026-03-02T06:00:30Z");
}

TEST_F(ProjectReconcilerTest, SuspendStartsNoRun) {
  Json suspended = shop_project();
  suspended["spec"]["suspend"] = true;
  store(client_, res::kDbtProjects, suspended);
  at("2026-03-02T06:00:30Z");
  auto result = reconcile();
  ASSERT_TRUE(result);
  EXPECT_TRUE(runs().empty());
  EXPECT_EQ(result->requeue_after, std::nullopt);
  const Json ready = condition("Ready");
  EXPECT_EQ(ready["reason"], "Suspended");
  EXPECT_FALSE(project()["status"].contains("lastScheduleTime"));
}

TEST_F(ProjectReconcilerTest, AnInvalidScheduleStallsTheProjectWithTheCronError) {
  store(client_, res::kDbtProjects, shop_project("99 * * * *"));
  at("2026-03-02T06:00:30Z");
  auto result = reconcile();
  ASSERT_TRUE(result);
  EXPECT_TRUE(runs().empty());
  EXPECT_EQ(result->requeue_after, std::nullopt);
  const Json stalled = condition("Stalled");
  const Json ready = condition("Ready");
  ASSERT_TRUE(stalled.is_object());
  EXPECT_EQ(stalled["status"], "True");
  EXPECT_EQ(stalled["reason"], "InvalidSchedule");
  EXPECT_EQ(stalled["message"], "spec.schedule: schedule \"99 * * * *\": minute field: 99 is out of range 0-59");
  EXPECT_EQ(ready["status"], "False");
  EXPECT_EQ(ready["reason"], "InvalidSchedule");
  EXPECT_EQ(ready["message"], stalled["message"]);
  EXPECT_EQ(events_with_reason("InvalidSchedule"), 1);
  ASSERT_TRUE(reconcile());
  EXPECT_EQ(events_with_reason("InvalidSchedule"), 1);  // not repeated while unchanged

  // Fixed: Stalled goes away, Ready flips with a new transition time.
  Json fixed = project();
  fixed["spec"]["schedule"] = "0 6 * * *";
  ASSERT_TRUE(client_.replace(res::kDbtProjects, {"ns", "shop"}, fixed, kube::Subresource::none));
  clock_.advance(1min);
  ASSERT_TRUE(reconcile());
  EXPECT_TRUE(condition("Stalled").is_null());
  EXPECT_EQ(condition("Ready")["status"], "True");
  EXPECT_EQ(condition("Ready")["lastTransitionTime"], "2026-03-02T06:01:30Z");
  EXPECT_EQ(project()["status"]["observedGeneration"], 2);
}

TEST_F(ProjectReconcilerTest, AnActiveRunSkipsTheTickUnderForbid) {
  store(client_, res::kDbtProjects, shop_project());
  Json active = manual_run("shop-manual");
  active["status"] = {{"phase", "Building"}};
  store(client_, res::kDbtRuns, active);
  at("2026-03-02T06:00:30Z");
  ASSERT_TRUE(reconcile());
  EXPECT_EQ(runs().size(), 1u);
  EXPECT_EQ(events_with_reason("RunSkipped"), 1);
  EXPECT_EQ(project()["status"]["lastScheduleTime"], "2026-03-02T06:00:30Z");
  const Json reconciling = condition("Reconciling");
  ASSERT_TRUE(reconciling.is_object());
  EXPECT_EQ(reconciling["message"], "run shop-manual is Building");
}

TEST_F(ProjectReconcilerTest, ReplaceFailsTheActiveRunAndStartsANewOne) {
  Json replacing = shop_project();
  replacing["spec"]["policies"]["concurrency"] = "Replace";
  store(client_, res::kDbtProjects, replacing);
  Json active = manual_run("shop-manual");
  active["status"] = {{"phase", "Building"}, {"jobName", "shop-manual"}};
  store(client_, res::kDbtRuns, active);
  store(client_, res::kJobs, {{"metadata", {{"name", "shop-manual"}, {"namespace", "ns"}}}});
  at("2026-03-02T06:00:30Z");
  ASSERT_TRUE(reconcile());
  EXPECT_EQ(runs().size(), 2u);
  const Json old = *client_.get(res::kDbtRuns, {"ns", "shop-manual"});
  EXPECT_EQ(old["status"]["phase"], "Failed");
  EXPECT_EQ(old["status"]["reason"], "Replaced");
  EXPECT_TRUE(client_.objects(res::kJobs, "ns").empty());
}

TEST_F(ProjectReconcilerTest, HistoryKeepsTheNewestFinishedRunsAndStatusShowsTheLatest) {
  store(client_, res::kDbtProjects, shop_project(""));
  Json first = finished_run("r1", "Succeeded", "2026-03-01T06:10:00Z", 12, 0);
  first["status"]["jobName"] = "r1";
  store(client_, res::kDbtRuns, first);
  store(client_, res::kJobs, {{"metadata", {{"name", "r1"}, {"namespace", "ns"}}}});
  store(client_, res::kSecrets, {{"metadata", {{"name", "r1-run-token"}, {"namespace", "ns"}}}});
  store(client_, res::kJobs, {{"metadata", {{"name", "r4"}, {"namespace", "ns"}}}});
  store(client_, res::kDbtRuns, finished_run("r2", "Succeeded", "2026-03-01T07:10:00Z", 3, 9));
  store(client_, res::kDbtRuns, finished_run("r5", "Succeeded", "2026-03-01T10:10:00Z", 1, 2));
  store(client_, res::kDbtRuns, finished_run("r3", "Failed", "2026-03-01T08:10:00Z", 0, 0));
  store(client_, res::kDbtRuns, finished_run("r4", "Succeeded", "2026-03-01T09:10:00Z", 2, 10));
  store(client_, res::kDbtRuns, manual_run("r6"));  // active: not history
  store(client_, res::kDbtRuns, finished_run("other", "Succeeded", "2026-03-01T01:00:00Z", 1, 1));
  client_.merge_patch(res::kDbtRuns, {"ns", "other"}, {{"spec", {{"projectRef", {{"name", "another"}}}}}},
                      kube::Subresource::none);
  at("2026-03-02T00:00:00Z");
  auto result = reconcile();
  ASSERT_TRUE(result) << result.error().message;
  std::set<std::string> names;
  for (const Json& run : runs()) names.insert(run["metadata"]["name"]);
  EXPECT_EQ(names, (std::set<std::string>{"r3", "r4", "r5", "r6", "other"}));
  ASSERT_EQ(client_.objects(res::kJobs, "ns").size(), 1u);  // r1's Job and Secret went with it
  EXPECT_EQ(client_.objects(res::kJobs, "ns")[0]["metadata"]["name"], "r4");
  EXPECT_TRUE(client_.objects(res::kSecrets, "ns").empty());
  const Json last = project()["status"]["lastRun"];
  EXPECT_EQ(last["name"], "r5");
  EXPECT_EQ(last["phase"], "Succeeded");
  EXPECT_EQ(last["completionTime"], "2026-03-01T10:10:00Z");
  EXPECT_EQ(last["built"], 1);
  EXPECT_EQ(last["reused"], 2);
  EXPECT_EQ(last["reusePercent"], 66);
  const Json ready = condition("Ready");
  EXPECT_EQ(ready["reason"], "Unscheduled");
  EXPECT_EQ(result->requeue_after, std::nullopt);
}

TEST_F(ProjectReconcilerTest, AFailedLastRunMakesTheProjectNotReady) {
  store(client_, res::kDbtProjects, shop_project(""));
  store(client_, res::kDbtRuns, finished_run("r1", "Failed", "2026-03-01T06:10:00Z", 0, 0));
  ASSERT_TRUE(reconcile());
  const Json ready = condition("Ready");
  EXPECT_EQ(ready["status"], "False");
  EXPECT_EQ(ready["reason"], "LastRunFailed");
  EXPECT_EQ(ready["message"], "run r1 failed (DeadlineExceeded): the pod ran too long");
  EXPECT_EQ(project()["status"]["lastRun"]["reusePercent"], 0);
}

TEST_F(ProjectReconcilerTest, NothingChangedWritesNothing) {
  store(client_, res::kDbtProjects, shop_project());
  at("2026-03-02T05:00:00Z");
  ASSERT_TRUE(reconcile());
  const int writes = client_.calls("merge_patch", res::kDbtProjects);
  clock_.advance(10min);
  ASSERT_TRUE(reconcile());
  EXPECT_EQ(client_.calls("merge_patch", res::kDbtProjects), writes);
}

TEST_F(ProjectReconcilerTest, ApiFailuresAreErrorsAndAMissingProjectIsDone) {
  store(client_, res::kDbtProjects, shop_project());
  client_.fail_next("list", res::kDbtRuns, {500, "InternalError", "etcd timeout"});
  auto failed = reconcile();
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().code, "kube_api");
  EXPECT_NE(failed.error().message.find("listing the DbtRuns of ns/shop: 500 InternalError"), std::string::npos);
  auto missing = reconciler_.reconcile({"ns", "gone"});
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->requeue_after, std::nullopt);
}

TEST(ProjectKeyOfRun, IsTheRunsProjectInItsNamespace) {
  const Json run = testing::manual_run("r1", "shop");
  EXPECT_EQ(project_key_of_run(run).str(), "ns/shop");
}

}  // namespace
}  // namespace ods::control
