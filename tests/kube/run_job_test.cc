// The DbtRun reconciler and the kubelet stand-in on the real kube-apiserver, through the real
// client (operator/kube): the run's Secret and Job are created as the API server validates
// them, the stand-in runs the Job as a local process with the run's token and profile mounted,
// and the Job's end (a non-zero exit, the run timeout) fails the run with the Job's reason.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "harness/kubelet_standin.h"
#include "kube/kube_client_fixture.h"
#include "ods/control/run_reconciler.h"

namespace ods::testing {
namespace {

namespace res = kube::resources;

class KubeRunJobTest : public KubeClientTest {
 protected:
  void SetUp() override {
    KubeClientTest::SetUp();
    namespace_ = make_namespace("runjob");
    dir_ = plane().dir() / namespace_;
    std::filesystem::create_directories(dir_);
  }

  // A project, its profile Secret and a run of it; the runner's `ods` is the shell `script`.
  void create_run(const std::string& run_timeout, const std::string& script) {
    const auto path = dir_ / "ods";
    std::ofstream(path) << "#!/bin/sh\n" << script << "\n";
    std::filesystem::permissions(path, std::filesystem::perms::owner_all);
    executable_ = path.string();
    const Json project = {{"apiVersion", "ods.dev/v1alpha1"},
                          {"kind", "DbtProject"},
                          {"metadata", {{"name", "shop"}}},
                          {"spec",
                           {{"source", {{"image", {{"path", "/project"}}}}},
                            {"image", "ghcr.io/acme/ods-runner:0.1"},
                            {"profileSecretRef", {{"name", "shop-profile"}}},
                            {"target", "prod"},
                            {"policies", {{"runTimeout", run_timeout}}}}}};
    const Json profile = {{"apiVersion", "v1"},
                          {"kind", "Secret"},
                          {"metadata", {{"name", "shop-profile"}}},
                          {"stringData", {{"profiles.yml", "shop: {target: prod}\n"}}}};
    const Json run = {{"apiVersion", "ods.dev/v1alpha1"},
                      {"kind", "DbtRun"},
                      {"metadata", {{"name", "shop-run"}}},
                      {"spec", {{"projectRef", {{"name", "shop"}}}}}};
    for (const auto& [resource, object] :
         {std::pair{&res::kDbtProjects, project}, std::pair{&res::kSecrets, profile}, std::pair{&res::kDbtRuns, run}}) {
      auto created = client().create(*resource, namespace_, object);
      ASSERT_TRUE(created) << created.error().message;
    }
  }

  // Reconciles the run until it finishes while the stand-in runs its Job; the run's last state.
  Json run_to_the_end() {
    ods::Clock& clock = ods::system_clock();
    control::EventRecorder events(client(), clock);
    control::DbtRunReconciler reconciler(client(), clock, events,
                                         [](const Json&) { return std::string("token-of-the-run"); },
                                         {.callback_url = "http://127.0.0.1:1"});
    KubeletStandin standin(
        client(), {.namespace_name = namespace_, .root = dir_ / "pods", .executables = {{"ods", executable_}}});
    standin.start();
    Json run;
    const bool finished = eventually([&] {
      auto reconciled = reconciler.reconcile({namespace_, "shop-run"});
      EXPECT_TRUE(reconciled) << reconciled.error().message;
      run = *client().get(res::kDbtRuns, {namespace_, "shop-run"});
      const std::string phase = run.value("status", Json::object()).value("phase", "");
      return phase == "Succeeded" || phase == "Failed";
    });
    standin.stop();
    EXPECT_TRUE(finished) << "the run did not finish: " << run.dump();
    EXPECT_TRUE(standin.problems().empty()) << standin.problems().front();
    return run;
  }

  std::string namespace_;
  std::filesystem::path dir_;
  std::string executable_;
};

TEST_F(KubeRunJobTest, ARunnerPodExitingNonZeroFailsTheRunWithTheJobsReason) {
  // The pod checks that its token and profile are where its environment says, then exits 3.
  create_run("10m",
             "test \"$(cat \"$ODS_RUN_TOKEN_FILE\")\" = token-of-the-run || exit 10\n"
             "test -s \"$DBT_PROFILES_DIR/profiles.yml\" || exit 11\n"
             "exit 3");
  const Json run = run_to_the_end();
  EXPECT_EQ(run["status"]["phase"], "Failed");
  EXPECT_EQ(run["status"]["reason"], "BackoffLimitExceeded");
  EXPECT_NE(run["status"]["message"].get<std::string>().find("exited with code 3"), std::string::npos)
      << run["status"].dump();
  const Json job = *client().get(res::kJobs, {namespace_, "shop-run"});
  EXPECT_EQ(job["metadata"]["ownerReferences"][0]["uid"], run["metadata"]["uid"]);
  EXPECT_EQ(job["spec"]["activeDeadlineSeconds"], 600);
  EXPECT_EQ(job["spec"]["template"]["spec"]["securityContext"]["runAsNonRoot"], true);
  ProcessResult events = plane().kubectl({"-n", namespace_, "get", "events"});
  EXPECT_NE(events.output.find("RunFailed"), std::string::npos) << events.output << events.errors;
  EXPECT_NE(events.output.find("JobCreated"), std::string::npos) << events.output;
}

TEST_F(KubeRunJobTest, ARunnerPodOutlivingTheRunTimeoutFailsTheRunWithDeadlineExceeded) {
  create_run("1s", "sleep 60");
  const Json run = run_to_the_end();
  EXPECT_EQ(run["status"]["phase"], "Failed");
  EXPECT_EQ(run["status"]["reason"], "DeadlineExceeded");
  const Json ready = run["status"]["conditions"][0];
  EXPECT_EQ(ready["type"], "Ready");
  EXPECT_EQ(ready["status"], "False");
  EXPECT_EQ(ready["reason"], "DeadlineExceeded");
}

}  // namespace
}  // namespace ods::testing
