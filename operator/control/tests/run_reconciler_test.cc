#include "ods/control/run_reconciler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "ods/callback/pod_environment.h"
#include "ods/control/conditions.h"
#include "reconciler_world.h"
#include "test_objects.h"

namespace ods::control {
namespace {

using namespace std::chrono_literals;
using testing::any_token;
using testing::FakeClient;
using testing::FakeClock;
using testing::manual_run;
using testing::ReconcilerWorld;
using testing::shop_project;
using testing::store;
namespace res = kube::resources;

class RunReconcilerTest : public ::testing::Test, protected ReconcilerWorld {
 protected:
  void SetUp() override {
    store(client_, res::kDbtProjects, shop_project());
    run_ = store(client_, res::kDbtRuns, manual_run("shop-run-1"));
  }
  Result<ReconcileResult> reconcile() { return reconciler_.reconcile({"ns", "shop-run-1"}); }
  Json run() { return *client_.get(res::kDbtRuns, {"ns", "shop-run-1"}); }
  Json job() { return *client_.get(res::kJobs, {"ns", "shop-run-1"}); }
  Json condition(std::string_view type) {
    const Json conditions = run()["status"].value("conditions", Json());
    const Json* found = find_condition(conditions, type);
    return found == nullptr ? Json() : *found;
  }
  void set_job_status(const Json& status) {
    ASSERT_TRUE(client_.merge_patch(res::kJobs, {"ns", "shop-run-1"}, {{"status", status}}, kube::Subresource::status));
  }
  int events_with_reason(const std::string& reason) {
    int count = 0;
    for (const Json& event : client_.objects(kCoreEvents, "ns")) count += event["reason"] == reason;
    return count;
  }
  static std::string env(const Json& container, const std::string& name) {
    for (const Json& item : container["env"]) {
      if (item["name"] == name) return item["value"];
    }
    return "<unset>";
  }

  int tokens_issued_ = 0;
  DbtRunReconciler reconciler_{client_, clock_, events_,
                               [this](const Json& run) {
                                 ++tokens_issued_;
                                 return "token-for-" + run["metadata"]["name"].get<std::string>();
                               },
                               RunJobOptions{.callback_url = "https://ods-operator.ods-system.svc:8443"}};
  Json run_;
};

TEST_F(RunReconcilerTest, ANewRunGetsItsTokenSecretAndOneJobAndIsPending) {
  auto result = reconcile();
  ASSERT_TRUE(result) << result.error().message;
  const Json secret = *client_.get(res::kSecrets, {"ns", "shop-run-1-run-token"});
  EXPECT_EQ(secret["stringData"]["token"], "token-for-shop-run-1");
  EXPECT_EQ(secret["metadata"]["ownerReferences"][0]["kind"], "DbtRun");
  EXPECT_EQ(secret["metadata"]["ownerReferences"][0]["uid"], run_["metadata"]["uid"]);

  const Json created = job();
  EXPECT_EQ(created["metadata"]["ownerReferences"][0]["kind"], "DbtRun");
  EXPECT_EQ(created["metadata"]["ownerReferences"][0]["name"], "shop-run-1");
  EXPECT_EQ(created["metadata"]["ownerReferences"][0]["uid"], run_["metadata"]["uid"]);
  EXPECT_EQ(created["metadata"]["ownerReferences"][0]["controller"], true);
  EXPECT_EQ(created["metadata"]["labels"]["ods.dev/run"], "shop-run-1");

  const Json status = run()["status"];
  EXPECT_EQ(status["phase"], "Pending");
  EXPECT_EQ(status["jobName"], "shop-run-1");
  EXPECT_EQ(condition("Ready")["status"], "Unknown");
  EXPECT_EQ(condition("Reconciling")["status"], "True");
  EXPECT_EQ(events_with_reason("JobCreated"), 1);
}

TEST_F(RunReconcilerTest, TheJobRunsOdsPodWithTheRunsEnvironmentMountsAndLimits) {
  ASSERT_TRUE(reconcile());
  const Json spec = job()["spec"];
  EXPECT_EQ(spec["backoffLimit"], 0);
  EXPECT_EQ(spec["activeDeadlineSeconds"], 45 * 60);
  const Json pod = spec["template"]["spec"];
  EXPECT_EQ(pod["restartPolicy"], "Never");
  EXPECT_EQ(pod["automountServiceAccountToken"], false);
  EXPECT_EQ(pod["securityContext"]["runAsNonRoot"], true);
  EXPECT_GT(pod["securityContext"]["runAsUser"].get<int>(), 0);
  ASSERT_EQ(pod["containers"].size(), 1u);
  const Json container = pod["containers"][0];
  EXPECT_EQ(container["image"], "ghcr.io/ods-dev/ods-runner:0.1");
  EXPECT_EQ(container["command"], Json({"ods", "pod"}));
  EXPECT_EQ(env(container, "ODS_CALLBACK_URL"), "https://ods-operator.ods-system.svc:8443");
  EXPECT_EQ(env(container, "ODS_RUN"), "ns/shop-run-1");
  EXPECT_EQ(env(container, "ODS_RUN_TOKEN_FILE"), "/var/run/ods/run/token");
  EXPECT_EQ(env(container, "DBT_PROFILES_DIR"), "/var/run/ods/profile");
  EXPECT_EQ(env(container, "ODS_PROJECT_DIR"), "/project");
  EXPECT_EQ(env(container, "ODS_TARGET"), "prod");
  EXPECT_EQ(env(container, "ODS_SELECT"), "tag:daily orders+");
  EXPECT_EQ(env(container, "ODS_EXCLUDE"), "tag:slow");
  const Json& security = container["securityContext"];
  EXPECT_EQ(security["allowPrivilegeEscalation"], false);
  EXPECT_EQ(security["readOnlyRootFilesystem"], true);
  EXPECT_EQ(security["runAsNonRoot"], true);
  EXPECT_EQ(security["capabilities"]["drop"], Json({"ALL"}));
  EXPECT_EQ(container["resources"]["limits"]["memory"], "2Gi");
  std::map<std::string, Json> volumes;
  for (const Json& volume : pod["volumes"]) volumes[volume["name"]] = volume;
  EXPECT_EQ(volumes["profile"]["secret"]["secretName"], "shop-dbt-profile");
  EXPECT_EQ(volumes["profile"]["secret"]["items"][0]["key"], "profiles.yml");
  EXPECT_EQ(volumes["run-token"]["secret"]["secretName"], "shop-run-1-run-token");
  std::map<std::string, Json> mounts;
  for (const Json& mount : container["volumeMounts"]) mounts[mount["name"]] = mount;
  EXPECT_EQ(mounts["profile"]["mountPath"], "/var/run/ods/profile");
  EXPECT_EQ(mounts["profile"]["readOnly"], true);
  EXPECT_EQ(mounts["run-token"]["mountPath"], "/var/run/ods/run");
  EXPECT_EQ(mounts["run-token"]["readOnly"], true);
}

TEST_F(RunReconcilerTest, TheRunsSelectionAndThePodTemplateWin) {
  Json project = *client_.get(res::kDbtProjects, {"ns", "shop"});
  project["spec"]["runnerPodTemplate"] = {
      {"resources", {{"limits", {{"memory", "8Gi"}}}}},
      {"serviceAccountName", "dbt-runner"},
      {"env", {{{"name", "DBT_THREADS"}, {"value", "8"}}, {{"name", "ODS_RUN"}, {"value", "ns/someone-else"}}}}};
  ASSERT_TRUE(client_.replace(res::kDbtProjects, {"ns", "shop"}, project, kube::Subresource::none));
  ASSERT_TRUE(client_.remove(res::kDbtRuns, {"ns", "shop-run-1"}));
  Json narrowed = manual_run("shop-run-1");
  narrowed["spec"]["selection"] = {{"select", {"orders"}}};
  store(client_, res::kDbtRuns, narrowed);
  ASSERT_TRUE(reconcile());
  const Json pod = job()["spec"]["template"]["spec"];
  const Json container = pod["containers"][0];
  EXPECT_EQ(env(container, "ODS_SELECT"), "orders");
  EXPECT_EQ(env(container, "ODS_EXCLUDE"), "");
  EXPECT_EQ(env(container, "DBT_THREADS"), "8");
  EXPECT_EQ(env(container, "ODS_RUN"), "ns/shop-run-1");  // the template cannot override ours
  EXPECT_EQ(container["resources"]["limits"]["memory"], "8Gi");
  EXPECT_EQ(pod["serviceAccountName"], "dbt-runner");
}

TEST_F(RunReconcilerTest, TheDigestKeyReachesThePodAsASecretReferenceNeverAsAValue) {
  auto container_of_a_run = [&](const Json& spec_patch) {
    Json project = *client_.get(res::kDbtProjects, {"ns", "shop"});
    project["spec"].merge_patch(spec_patch);
    EXPECT_TRUE(client_.replace(res::kDbtProjects, {"ns", "shop"}, project, kube::Subresource::none));
    EXPECT_TRUE(client_.remove(res::kJobs, {"ns", "shop-run-1"}));
    EXPECT_TRUE(client_.remove(res::kDbtRuns, {"ns", "shop-run-1"}));
    store(client_, res::kDbtRuns, manual_run("shop-run-1"));
    EXPECT_TRUE(reconcile());
    return job()["spec"]["template"]["spec"]["containers"][0];
  };
  auto digest_env = [](const Json& container) {
    Json found;
    for (const Json& item : container["env"]) {
      if (item["name"] == "ODS_DIGEST_KEY") found = item;
    }
    return found;
  };
  ASSERT_TRUE(reconcile());
  // A plain value in the template is never taken, with or without a reference.
  const Json template_env = {{"env", {{{"name", "ODS_DIGEST_KEY"}, {"value", "stored-in-the-project-0123"}}}}};
  EXPECT_TRUE(digest_env(container_of_a_run({{"runnerPodTemplate", template_env}})).is_null());

  const Json with_key = digest_env(container_of_a_run({{"digestKeySecretRef", {{"name", "shop-digest-key"}}}}));
  EXPECT_EQ(with_key, Json({{"name", "ODS_DIGEST_KEY"},
                            {"valueFrom", {{"secretKeyRef", {{"name", "shop-digest-key"}, {"key", "digest-key"}}}}}}));
  const Json other_key =
      digest_env(container_of_a_run({{"digestKeySecretRef", {{"name", "keys"}, {"key", "shop.digest"}}}}));
  EXPECT_EQ(other_key["valueFrom"]["secretKeyRef"], Json({{"name", "keys"}, {"key", "shop.digest"}}));
  EXPECT_FALSE(other_key.contains("value"));
}

TEST_F(RunReconcilerTest, APodTheKubeletCannotStartShowsWhyInThePendingRun) {
  ASSERT_TRUE(reconcile());
  Json pod = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", "shop-run-1-x7k2p"}, {"namespace", "ns"}, {"labels", {{"job-name", "shop-run-1"}}}}},
      {"status",
       {{"phase", "Pending"},
        {"containerStatuses", {{{"name", "runner"}, {"state", {{"waiting", {{"reason", "ContainerCreating"}}}}}}}}}}};
  store(client_, res::kPods, pod);
  auto creating = reconcile();
  ASSERT_TRUE(creating) << creating.error().message;
  EXPECT_EQ(creating->requeue_after, kPodRecheck);  // no pod event wakes the reconciler
  EXPECT_EQ(run()["status"]["reason"], "JobCreated");

  pod["status"]["containerStatuses"][0]["state"]["waiting"] = {{"reason", "CreateContainerConfigError"},
                                                               {"message", "secret \"shop-digest-key\" not found"}};
  ASSERT_TRUE(client_.merge_patch(res::kPods, {"ns", "shop-run-1-x7k2p"}, {{"status", pod["status"]}},
                                  kube::Subresource::status));
  auto stuck = reconcile();
  ASSERT_TRUE(stuck) << stuck.error().message;
  EXPECT_EQ(stuck->requeue_after, kPodRecheck);
  const Json status = run()["status"];
  EXPECT_EQ(status["phase"], "Pending");
  EXPECT_EQ(status["reason"], "CreateContainerConfigError");
  EXPECT_EQ(status["message"],
            "the runner pod shop-run-1-x7k2p cannot start (CreateContainerConfigError): secret \"shop-digest-key\" not "
            "found; it starts once that is fixed, else the run fails at its runTimeout");
  EXPECT_EQ(events_with_reason("CreateContainerConfigError"), 1);
  const int writes = client_.calls("replace", res::kDbtRuns);
  ASSERT_TRUE(reconcile());
  EXPECT_EQ(client_.calls("replace", res::kDbtRuns), writes);  // unchanged: nothing written, no second Event
  EXPECT_EQ(events_with_reason("CreateContainerConfigError"), 1);

  // Once the pod reported (phase Compiling), its pods are no longer looked at.
  RunStatus writer(client_, clock_, events_);
  ASSERT_TRUE(writer.set_phase({"ns", "shop-run-1"}, phase::kCompiling, Json::object()));
  const int lists = client_.calls("list", res::kPods);
  auto running = reconcile();
  ASSERT_TRUE(running);
  EXPECT_FALSE(running->requeue_after.has_value());
  EXPECT_EQ(client_.calls("list", res::kPods), lists);
}

TEST_F(RunReconcilerTest, ARestartedOperatorCreatesNoSecondJobOrToken) {
  ASSERT_TRUE(reconcile());
  // The previous operator died after creating the Job but before writing the status.
  ASSERT_TRUE(client_.replace(res::kDbtRuns, {"ns", "shop-run-1"}, Json{{"status", Json::object()}},
                              kube::Subresource::status));
  ASSERT_TRUE(reconcile());
  ASSERT_TRUE(reconcile());
  EXPECT_EQ(client_.objects(res::kJobs, "ns").size(), 1u);
  EXPECT_EQ(client_.objects(res::kSecrets, "ns").size(), 1u);
  EXPECT_EQ(tokens_issued_, 1);
  EXPECT_EQ(run()["status"]["jobName"], "shop-run-1");
  EXPECT_EQ(client_.calls("create", res::kJobs), 1);
}

TEST_F(RunReconcilerTest, AJobCreatedBeforeARestartIsAdoptedWhenCreateSaysAlreadyExists) {
  ASSERT_TRUE(reconcile());
  ASSERT_TRUE(client_.replace(res::kDbtRuns, {"ns", "shop-run-1"}, Json{{"status", Json::object()}},
                              kube::Subresource::status));
  // A stale read: find() misses the Job, create() answers 409.
  client_.fail_next("find", res::kJobs, {404, "NotFound", "stale cache"});
  ASSERT_TRUE(reconcile());
  EXPECT_EQ(client_.calls("create", res::kJobs), 2);
  EXPECT_EQ(client_.objects(res::kJobs, "ns").size(), 1u);
  EXPECT_EQ(run()["status"]["phase"], "Pending");
  EXPECT_EQ(run()["status"]["jobName"], "shop-run-1");
  EXPECT_EQ(events_with_reason("JobCreated"), 1);
}

TEST_F(RunReconcilerTest, AnImageOutsideTheAllowListFailsTheRunBeforeAnyJobOrSecretExists) {
  DbtRunReconciler strict{client_, clock_, events_, any_token,
                          RunJobOptions{.callback_url = "https://ods-operator.ods-system.svc:8443",
                                        .policy = {.image_patterns = {"registry.corp/analytics/*"}}}};
  ASSERT_TRUE(strict.reconcile({"ns", "shop-run-1"}));
  const Json status = run()["status"];
  EXPECT_EQ(status["phase"], "Failed");
  EXPECT_EQ(condition("Ready")["reason"], "RunnerNotAllowed");
  EXPECT_NE(condition("Ready")["message"].get<std::string>().find(
                "spec.image 'ghcr.io/ods-dev/ods-runner:0.1' is not allowed by this operator"),
            std::string::npos)
      << condition("Ready");
  EXPECT_FALSE(client_.get(res::kJobs, {"ns", "shop-run-1"}));
  EXPECT_FALSE(client_.get(res::kSecrets, {"ns", "shop-run-1-run-token"}));
}

TEST_F(RunReconcilerTest, AFailedJobFailsTheRunWithTheJobsReason) {
  ASSERT_TRUE(reconcile());
  set_job_status({{"startTime", "2026-03-02T10:00:05Z"},
                  {"failed", 1},
                  {"conditions",
                   {{{"type", "Failed"},
                     {"status", "True"},
                     {"reason", "DeadlineExceeded"},
                     {"message", "Job was active longer than specified deadline"}}}}});
  clock_.advance(45min);
  ASSERT_TRUE(reconcile());
  const Json status = run()["status"];
  EXPECT_EQ(status["phase"], "Failed");
  EXPECT_EQ(status["reason"], "DeadlineExceeded");
  EXPECT_EQ(status["message"],
            "the runner Job shop-run-1 failed: Job was active longer than specified deadline; the state stays as it "
            "was");
  EXPECT_EQ(status["completionTime"], "2026-03-02T10:45:00Z");
  EXPECT_EQ(condition("Ready")["status"], "False");
  EXPECT_EQ(condition("Ready")["reason"], "DeadlineExceeded");
  EXPECT_EQ(condition("Ready")["lastTransitionTime"], "2026-03-02T10:45:00Z");
  EXPECT_TRUE(condition("Reconciling").is_null());
  EXPECT_EQ(events_with_reason("RunFailed"), 1);
}

TEST_F(RunReconcilerTest, APodExitingNonZeroFailsTheRunWithBackoffLimitExceeded) {
  ASSERT_TRUE(reconcile());
  set_job_status({{"conditions",
                   {{{"type", "Failed"},
                     {"status", "True"},
                     {"reason", "BackoffLimitExceeded"},
                     {"message", "Job has reached the specified backoff limit"}}}}});
  ASSERT_TRUE(reconcile());
  EXPECT_EQ(run()["status"]["reason"], "BackoffLimitExceeded");
}

TEST_F(RunReconcilerTest, APodKilledByItsMemoryLimitFailsTheRunWithOOMKilled) {
  ASSERT_TRUE(reconcile());
  Json pod = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", "shop-run-1-x7k2p"}, {"namespace", "ns"}, {"labels", {{"job-name", "shop-run-1"}}}}}};
  pod["spec"]["containers"] = Json::array({{{"name", "runner"}, {"resources", {{"limits", {{"memory", "64Mi"}}}}}}});
  pod["status"]["phase"] = "Failed";
  pod["status"]["containerStatuses"] =
      Json::array({{{"name", "runner"}, {"state", {{"terminated", {{"reason", "OOMKilled"}, {"exitCode", 137}}}}}}});
  store(client_, res::kPods, pod);
  set_job_status({{"failed", 1},
                  {"conditions",
                   {{{"type", "Failed"},
                     {"status", "True"},
                     {"reason", "BackoffLimitExceeded"},
                     {"message", "Job has reached the specified backoff limit"}}}}});
  ASSERT_TRUE(reconcile());
  const Json status = run()["status"];
  EXPECT_EQ(status["phase"], "Failed");
  EXPECT_EQ(status["reason"], "OOMKilled");
  EXPECT_EQ(status["message"],
            "the runner pod shop-run-1-x7k2p was killed by its memory limit (OOMKilled, exit code 137; limit 64Mi): "
            "raise spec.runnerPodTemplate.resources.limits.memory; the state stays as it was");
}

TEST_F(RunReconcilerTest, AVanishedJobFailsTheRun) {
  ASSERT_TRUE(reconcile());
  ASSERT_TRUE(client_.remove(res::kJobs, {"ns", "shop-run-1"}));
  ASSERT_TRUE(reconcile());
  EXPECT_EQ(run()["status"]["phase"], "Failed");
  EXPECT_EQ(run()["status"]["reason"], "JobVanished");
  EXPECT_EQ(client_.objects(res::kJobs, "ns").size(), 0u);  // not recreated
}

TEST_F(RunReconcilerTest, AJobCompletedWithoutResultsFailsTheRunWithNoResult) {
  ASSERT_TRUE(reconcile());
  set_job_status({{"succeeded", 1}, {"conditions", {{{"type", "Complete"}, {"status", "True"}}}}});
  ASSERT_TRUE(reconcile());
  EXPECT_EQ(run()["status"]["phase"], "Failed");
  EXPECT_EQ(run()["status"]["reason"], "NoResult");
}

TEST_F(RunReconcilerTest, AFinishedRunIsNotTouchedAgain) {
  ASSERT_TRUE(reconcile());
  RunStatus writer(client_, clock_, events_);
  ASSERT_TRUE(writer.set_phase({"ns", "shop-run-1"}, phase::kSucceeded, {{"plan", {{"built", 1}, {"reused", 3}}}}));
  const Json before = run();
  ASSERT_TRUE(client_.remove(res::kJobs, {"ns", "shop-run-1"}));
  ASSERT_TRUE(reconcile());
  EXPECT_EQ(run(), before);
  EXPECT_EQ(before["status"]["plan"]["reusePercent"], 75);
  EXPECT_EQ(events_with_reason("RunSucceeded"), 1);
}

TEST_F(RunReconcilerTest, TheJobsStartTimeIsCopiedIntoTheRun) {
  ASSERT_TRUE(reconcile());
  set_job_status({{"startTime", "2026-03-02T10:00:05Z"}, {"active", 1}});
  ASSERT_TRUE(reconcile());
  EXPECT_EQ(run()["status"]["startTime"], "2026-03-02T10:00:05Z");
  EXPECT_EQ(run()["status"]["phase"], "Pending");
  const int writes = client_.calls("replace", res::kDbtRuns);
  ASSERT_TRUE(reconcile());
  EXPECT_EQ(client_.calls("replace", res::kDbtRuns), writes);  // nothing new: nothing written
}

TEST_F(RunReconcilerTest, ARunCreatedAgainUnderItsOldNameGetsAFreshJobAndToken) {
  ASSERT_TRUE(reconcile());
  ASSERT_TRUE(client_.remove(res::kDbtRuns, {"ns", "shop-run-1"}));  // no garbage collector here
  const Json again = store(client_, res::kDbtRuns, manual_run("shop-run-1"));
  auto first = reconcile();  // the old Job goes
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_TRUE(first->requeue_after.has_value());
  EXPECT_TRUE(client_.objects(res::kJobs, "ns").empty());
  ASSERT_TRUE(reconcile());
  EXPECT_EQ(job()["metadata"]["ownerReferences"][0]["uid"], again["metadata"]["uid"]);
  const Json secret = *client_.get(res::kSecrets, {"ns", "shop-run-1-run-token"});
  EXPECT_EQ(secret["metadata"]["ownerReferences"][0]["uid"], again["metadata"]["uid"]);
  EXPECT_EQ(tokens_issued_, 2);
  EXPECT_EQ(run()["status"]["phase"], "Pending");
}

TEST_F(RunReconcilerTest, AMissingProjectFailsTheRun) {
  ASSERT_TRUE(client_.remove(res::kDbtProjects, {"ns", "shop"}));
  ASSERT_TRUE(reconcile());
  EXPECT_EQ(run()["status"]["reason"], "ProjectNotFound");
  EXPECT_TRUE(client_.objects(res::kJobs, "ns").empty());
}

TEST(RunStatusTest, PhasesMoveForwardOnlyAndRefuseUnknownNames) {
  FakeClient client;
  FakeClock clock;
  EventRecorder events(client, clock);
  store(client, res::kDbtRuns, manual_run("r1"));
  RunStatus writer(client, clock, events);
  const kube::ObjectKey key{"ns", "r1"};
  ASSERT_TRUE(writer.set_phase(key, phase::kCompiling, Json::object()));
  auto planned = writer.set_phase(key, phase::kBuilding, {{"plan", {{"total", 12}, {"built", 3}, {"reused", 9}}}});
  ASSERT_TRUE(planned);
  EXPECT_EQ((*planned)["status"]["plan"]["reusePercent"], 75);
  EXPECT_EQ((*planned)["status"]["phase"], "Building");
  auto back = writer.set_phase(key, phase::kCompiling, Json::object());
  ASSERT_FALSE(back);
  EXPECT_EQ(back.error().code, "invalid_transition");
  auto bogus = writer.set_phase(key, "Dancing", Json::object());
  ASSERT_FALSE(bogus);
  EXPECT_EQ(bogus.error().code, "invalid_phase");
  auto missing = writer.set_phase({"ns", "nope"}, phase::kBuilding, Json::object());
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, "not_found");
  ASSERT_TRUE(writer.set_phase(key, phase::kFailed, {{"reason", "PlanFailed"}, {"message", "x"}}));
  auto after = writer.set_phase(key, phase::kSucceeded, Json::object());
  ASSERT_FALSE(after);
  EXPECT_EQ(after.error().code, "run_finished");
}

TEST(RunStatusTest, AConflictIsRetriedOnTheNewerRun) {
  FakeClient client;
  FakeClock clock;
  EventRecorder events(client, clock);
  store(client, res::kDbtRuns, manual_run("r1"));
  RunStatus writer(client, clock, events);
  client.fail_next("replace", res::kDbtRuns, {409, "Conflict", "the object has been modified"});
  ASSERT_TRUE(writer.set_phase({"ns", "r1"}, phase::kPlanning, Json::object()));
  EXPECT_EQ(client.calls("replace", res::kDbtRuns), 2);
}

// The packages cache (docs/kubernetes.md, "A packages cache"): none by default; a hostPath mounted
// at the run's namespace's own folder; a claim of the run's namespace mounted whole. A project's
// env can't point the pod elsewhere.
TEST(RunJob, ThePackagesCacheIsANamespacesFolderOfAHostPathOrItsClaim) {
  Json project = testing::shop_project();
  project["spec"]["runnerPodTemplate"] = {{"env", {{{"name", "ODS_PACKAGES_CACHE"}, {"value", "/tmp/mine"}}}}};
  const Json run = testing::manual_run("shop-run-1");
  auto find = [](const Json& list, const std::string& name) {
    for (const Json& item : list)
      if (item["name"] == name) return item;
    return Json();
  };
  auto none = runner_job(run, project, RunJobOptions{.callback_url = "http://x"});
  ASSERT_TRUE(none) << none.error().message;
  const Json none_pod = (*none)["spec"]["template"]["spec"];
  EXPECT_TRUE(find(none_pod["volumes"], "packages-cache").is_null());
  EXPECT_EQ(find(none_pod["containers"][0]["env"], "ODS_PACKAGES_CACHE")["value"], "/tmp/mine");  // the project's own

  auto host = runner_job(run, project,
                         RunJobOptions{.callback_url = "http://x", .packages_cache = {.host_path = "/var/cache/ods"}});
  ASSERT_TRUE(host) << host.error().message;
  const Json host_pod = (*host)["spec"]["template"]["spec"];
  EXPECT_EQ(find(host_pod["volumes"], "packages-cache")["hostPath"],
            Json({{"path", "/var/cache/ods"}, {"type", "DirectoryOrCreate"}}));
  const Json mount = find(host_pod["containers"][0]["volumeMounts"], "packages-cache");
  EXPECT_EQ(mount["mountPath"], "/var/cache/ods/packages");
  EXPECT_EQ(mount["subPath"], "ns");
  const Json env = host_pod["containers"][0]["env"];
  EXPECT_EQ(find(env, "ODS_PACKAGES_CACHE")["value"], "/var/cache/ods/packages");
  int settings = 0;
  for (const Json& item : env) settings += item["name"] == "ODS_PACKAGES_CACHE";
  EXPECT_EQ(settings, 1);

  auto claim = runner_job(run, project,
                          RunJobOptions{.callback_url = "http://x", .packages_cache = {.claim_name = "dbt-packages"}});
  ASSERT_TRUE(claim) << claim.error().message;
  const Json claim_pod = (*claim)["spec"]["template"]["spec"];
  EXPECT_EQ(find(claim_pod["volumes"], "packages-cache")["persistentVolumeClaim"]["claimName"], "dbt-packages");
  EXPECT_FALSE(find(claim_pod["containers"][0]["volumeMounts"], "packages-cache").contains("subPath"));
  EXPECT_EQ(find(claim_pod["containers"][0]["env"], "ODS_PACKAGES_CACHE")["value"], "/var/cache/ods/packages");
}

// Every name a runner Job sets is one of ods/callback/pod_environment.h, which `ods pod` reads
// (cli_tests, PodEnvironment), and each listed name is set by some Job: an image or a private git
// source, a digest key, a packages cache. The template's own env is the user's and not listed.
TEST(RunJob, TheJobSetsExactlyTheListedPodEnvironment) {
  namespace pod_env = callback::pod_env;
  const Json run = testing::manual_run("shop-run-1");
  Json image = testing::shop_project();
  image["spec"]["digestKeySecretRef"] = {{"name", "keys"}};
  Json git = testing::shop_project();
  git["spec"]["source"] = {{"git", {{"url", "https://example.com/shop.git"}, {"secretRef", {{"name", "git"}}}}}};
  std::set<std::string> set_by_some_job;
  for (const Json& project : {image, git}) {
    auto job = runner_job(run, project,
                          RunJobOptions{.callback_url = "http://x", .packages_cache = {.claim_name = "packages"}});
    ASSERT_TRUE(job) << job.error().message;
    for (const Json& item : (*job)["spec"]["template"]["spec"]["containers"][0]["env"]) {
      const std::string name = item["name"];
      EXPECT_TRUE(std::ranges::any_of(pod_env::kRunnerPodVariables, [&](const auto& v) { return v.name == name; }))
          << name << " is set by the Job but not listed in ods/callback/pod_environment.h";
      set_by_some_job.insert(name);
    }
  }
  for (const auto& variable : pod_env::kRunnerPodVariables)
    EXPECT_TRUE(set_by_some_job.contains(std::string(variable.name))) << variable.name << " is listed but never set";
}

// spec.policies.runTests reaches the pod as ODS_RUN_TESTS: true unless the project says false.
TEST(RunJob, RunTestsFalseReachesThePod) {
  const Json run = testing::manual_run("shop-run-1");
  auto run_tests = [&](const Json& policies) {
    Json project = testing::shop_project();
    project["spec"]["policies"] = policies;
    auto job = runner_job(run, project, RunJobOptions{.callback_url = "http://x"});
    if (!job) return std::string("<") + job.error().message + ">";
    for (const Json& item : (*job)["spec"]["template"]["spec"]["containers"][0]["env"])
      if (item["name"] == callback::pod_env::kRunTests) return item["value"].get<std::string>();
    return std::string("<unset>");
  };
  EXPECT_EQ(run_tests(Json::object()), "true");
  EXPECT_EQ(run_tests({{"runTests", true}}), "true");
  EXPECT_EQ(run_tests({{"runTests", false}}), "false");
}

TEST(RunJob, LongRunNamesGiveValidJobNamesAndTimeoutsParse) {
  const std::string long_name(80, 'a');
  const std::string name = runner_job_name(long_name);
  EXPECT_EQ(name.size(), 63u);
  EXPECT_EQ(name, runner_job_name(long_name));  // stable
  EXPECT_NE(name, runner_job_name(std::string(79, 'a') + "b"));
  EXPECT_EQ(parse_run_timeout("1h30m"), std::chrono::seconds(5400));
  EXPECT_EQ(parse_run_timeout("90s"), std::chrono::seconds(90));
  EXPECT_EQ(parse_run_timeout("45"), std::nullopt);
  EXPECT_EQ(parse_run_timeout("0s"), std::nullopt);
  EXPECT_EQ(parse_run_timeout("1d"), std::nullopt);
}

}  // namespace
}  // namespace ods::control
