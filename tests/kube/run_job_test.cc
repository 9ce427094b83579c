// The DbtRun reconciler and the kubelet stand-in on the real kube-apiserver, through the real
// client (operator/kube): the run's Secret and Job are created as the API server validates
// them, the stand-in runs the Job as a local process with the run's token and profile mounted,
// and the Job's end (a non-zero exit, the run timeout) fails the run with the Job's reason.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <functional>
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

  // A project (with `spec_patch` merged into its spec), its profile Secret and a run of it; the
  // runner's `ods` is the shell `script`.
  void create_run(const std::string& run_timeout, const std::string& script, const Json& spec_patch = Json::object()) {
    executable_ = write_runner_script(dir_, script);
    Json project = runner_project("shop", {{"image", {{"path", "/project"}}}}, {{"runTimeout", run_timeout}});
    project["spec"].merge_patch(spec_patch);
    const Json profile = runner_profile_secret();
    const Json run = runner_run("shop-run", "shop");
    for (const auto& [resource, object] :
         {std::pair{&res::kDbtProjects, project}, std::pair{&res::kSecrets, profile}, std::pair{&res::kDbtRuns, run}}) {
      auto created = client().create(*resource, namespace_, object);
      ASSERT_TRUE(created) << created.error().message;
    }
  }

  // Reconciles the run until it finishes while the stand-in runs its Job, calling `each` with the
  // run after every pass; the run's last state.
  Json run_to_the_end(const std::function<void(const Json&)>& each = {}) {
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
      if (each) each(run);
      const std::string phase = run.value("status", Json::object()).value("phase", "");
      return phase == "Succeeded" || phase == "Failed";
    });
    standin.stop();
    EXPECT_TRUE(finished) << "the run did not finish: " << run.dump();
    EXPECT_TRUE(standin.problems().empty()) << standin.problems().front();
    return run;
  }

  // The digest key Secret of the tests below.
  void create_digest_key_secret() {
    const Json secret = {{"apiVersion", "v1"},
                         {"kind", "Secret"},
                         {"metadata", {{"name", "shop-digest-key"}}},
                         {"stringData", {{"digest-key", kDigestKey}}}};
    auto created = client().create(res::kSecrets, namespace_, secret);
    ASSERT_TRUE(created) << created.error().message;
  }
  // What the controller and the API server hold beside the Secret: the run, the Job, the
  // project, the other Secrets and the Events of the namespace, as kubectl prints them.
  std::string everything_but_the_key_secret() {
    std::string out;
    for (const char* kind : {"dbtruns", "dbtprojects", "jobs", "pods", "events"}) {
      out += plane().kubectl({"-n", namespace_, "get", kind, "-o", "json"}).output;
    }
    auto secrets = client().list(res::kSecrets, namespace_, {});
    for (const Json& secret : (*secrets)["items"]) {
      if (secret["metadata"]["name"] != "shop-digest-key") out += secret.dump();
    }
    return out;
  }

  static constexpr const char* kDigestKey = "kube-test-digest-key-0123456789";
  // The pod exits 3 when it sees the key in its environment, 12 when not.
  static constexpr const char* kKeyCheck =
      "test \"$ODS_DIGEST_KEY\" = kube-test-digest-key-0123456789 || exit 12\nexit 3";
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

TEST_F(KubeRunJobTest, TheDigestKeyIsReferencedIntoTheRunnerPodOnlyAndNeverCopied) {
  create_digest_key_secret();
  create_run("10m", kKeyCheck, {{"digestKeySecretRef", {{"name", "shop-digest-key"}}}});
  const Json project = *client().get(res::kDbtProjects, {namespace_, "shop"});
  EXPECT_EQ(project["spec"]["digestKeySecretRef"]["key"], "digest-key");  // the CRD's default
  const Json run = run_to_the_end();
  EXPECT_EQ(run["status"]["reason"], "BackoffLimitExceeded");
  EXPECT_NE(run["status"]["message"].get<std::string>().find("exited with code 3"), std::string::npos)
      << "the pod did not get the key: " << run["status"].dump();
  const Json job = *client().get(res::kJobs, {namespace_, "shop-run"});
  Json reference;
  for (const Json& item : job["spec"]["template"]["spec"]["containers"][0]["env"]) {
    if (item["name"] == "ODS_DIGEST_KEY") reference = item;
  }
  EXPECT_EQ(reference["valueFrom"]["secretKeyRef"], Json({{"name", "shop-digest-key"}, {"key", "digest-key"}}));
  const std::string seen = everything_but_the_key_secret();
  EXPECT_NE(seen.find("shop-digest-key"), std::string::npos);  // what was searched holds the reference
  EXPECT_EQ(seen.find(kDigestKey), std::string::npos) << "the key's value is outside its Secret";
  EXPECT_EQ(seen.find("a3ViZS10ZXN0LWRpZ2VzdC1rZXktMDEyMzQ1Njc4OQ"), std::string::npos);  // nor its base64
}

// spec.policies.runTests: false passes the API server's schema and reaches the runner pod as
// ODS_RUN_TESTS=false (docs/kubernetes.md, "Runs without tests"): the pod exits 3 when it sees it,
// 12 when not.
TEST_F(KubeRunJobTest, RunTestsFalseReachesTheRunnerPod) {
  create_run("10m", "test \"$ODS_RUN_TESTS\" = false || exit 12\nexit 3", {{"policies", {{"runTests", false}}}});
  const Json run = run_to_the_end();
  EXPECT_EQ(run["status"]["reason"], "BackoffLimitExceeded");
  EXPECT_NE(run["status"]["message"].get<std::string>().find("exited with code 3"), std::string::npos)
      << "the pod did not get ODS_RUN_TESTS=false: " << run["status"].dump();
}

TEST_F(KubeRunJobTest, AMissingDigestKeySecretShowsCreateContainerConfigErrorUntilItIsCreated) {
  create_run("10m", kKeyCheck, {{"digestKeySecretRef", {{"name", "shop-digest-key"}}}});
  Json stuck;
  const Json run = run_to_the_end([&](const Json& now) {
    if (!stuck.is_null() || now["status"].value("reason", "") != "CreateContainerConfigError") return;
    stuck = now["status"];
    create_digest_key_secret();  // fixed: the pod starts
  });
  ASSERT_FALSE(stuck.is_null()) << "the run never showed why its pod could not start: " << run.dump();
  EXPECT_EQ(stuck["phase"], "Pending");
  EXPECT_NE(stuck["message"].get<std::string>().find("cannot start (CreateContainerConfigError): secret "
                                                     "\"shop-digest-key\" not found"),
            std::string::npos)
      << stuck.dump();
  ProcessResult events = plane().kubectl({"-n", namespace_, "get", "events"});
  EXPECT_NE(events.output.find("CreateContainerConfigError"), std::string::npos) << events.output << events.errors;
  EXPECT_NE(run["status"]["message"].get<std::string>().find("exited with code 3"), std::string::npos)
      << "the pod did not start with the key once the Secret existed: " << run["status"].dump();
}

}  // namespace
}  // namespace ods::testing
