// The kubelet stand-in on the in-memory fake client: what it writes for a process's end, and a
// runner Job of the DbtRun reconciler run as a local process end to end.
#include "harness/kubelet_standin.h"

#include <gtest/gtest.h>

#include <thread>

#include "fake_client.h"
#include "harness/eventually.h"
#include "ods/control/run_reconciler.h"

namespace ods::testing {
namespace {

namespace res = ods::kube::resources;
using ods::control::testing::FakeClient;

Json tiny_job(const std::string& name, const std::string& script) {
  return {{"apiVersion", "batch/v1"},
          {"kind", "Job"},
          {"metadata", {{"name", name}, {"namespace", "ns"}}},
          {"spec",
           {{"backoffLimit", 0},
            {"template",
             {{"spec",
               {{"restartPolicy", "Never"},
                {"containers",
                 {{{"name", "runner"},
                   {"image", "busybox"},
                   {"command", {"/bin/sh", "-c", script}},
                   {"env", {{{"name", "ODS_RUN_TOKEN_FILE"}, {"value", "/var/run/ods/run/token"}}}},
                   {"volumeMounts", {{{"name", "run-token"}, {"mountPath", "/var/run/ods/run"}}}}}}},
                {"volumes", {{{"name", "run-token"}, {"secret", {{"secretName", "tok"}}}}}}}}}}}}};
}

TEST(KubeletStandinMapping, ExitCodesBecomeTheJobConditionsTheJobControllerWrites) {
  const Json done = standin::job_status(PodResult{PodResult::Ending::exited, 0, ""}, "T0", "T1");
  EXPECT_EQ(done["succeeded"], 1);
  EXPECT_EQ(done["active"], 0);
  EXPECT_EQ(done["completionTime"], "T1");
  EXPECT_EQ(done["conditions"][0]["type"], "SuccessCriteriaMet");
  EXPECT_EQ(done["conditions"][1]["type"], "Complete");

  const Json failed = standin::job_status(PodResult{PodResult::Ending::exited, 3, ""}, "T0", "T1");
  EXPECT_EQ(failed["failed"], 1);
  EXPECT_FALSE(failed.contains("completionTime"));
  EXPECT_EQ(failed["conditions"][0]["type"], "FailureTarget");
  EXPECT_EQ(failed["conditions"][1]["type"], "Failed");
  EXPECT_EQ(failed["conditions"][1]["reason"], "BackoffLimitExceeded");
  EXPECT_NE(failed["conditions"][1]["message"].get<std::string>().find("exited with code 3"), std::string::npos);

  const Json late = standin::job_status(PodResult{PodResult::Ending::deadline_exceeded, 137, ""}, "T0", "T1");
  EXPECT_EQ(late["conditions"][1]["reason"], "DeadlineExceeded");

  const Json running = standin::job_status(std::nullopt, "T0", "T0");
  EXPECT_EQ(running["active"], 1);
  EXPECT_EQ(running["startTime"], "T0");
  EXPECT_FALSE(running.contains("conditions"));
}

TEST(KubeletStandinMapping, PodStatusCarriesPhaseAndExitCode) {
  const Json job = tiny_job("j", "true");
  EXPECT_EQ(standin::pod_status(job, std::nullopt, "T0", "T0")["phase"], "Running");
  const Json ok = standin::pod_status(job, PodResult{PodResult::Ending::exited, 0, ""}, "T0", "T1");
  EXPECT_EQ(ok["phase"], "Succeeded");
  const Json failed = standin::pod_status(job, PodResult{PodResult::Ending::exited, 3, ""}, "T0", "T1");
  EXPECT_EQ(failed["phase"], "Failed");
  EXPECT_EQ(failed["containerStatuses"][0]["state"]["terminated"]["exitCode"], 3);
  EXPECT_EQ(failed["containerStatuses"][0]["state"]["terminated"]["reason"], "Error");
  const Json late = standin::pod_status(job, PodResult{PodResult::Ending::deadline_exceeded, 137, ""}, "T0", "T1");
  EXPECT_EQ(late["reason"], "DeadlineExceeded");
  const Json pod = standin::pod_for_job(job, "j-standin");
  EXPECT_EQ(pod["metadata"]["labels"]["job-name"], "j");
  EXPECT_EQ(pod["metadata"]["ownerReferences"][0]["kind"], "Job");
}

TEST(KubeletStandinMapping, MountPathsInTheEnvironmentPointIntoTheVolumeFolders) {
  const auto env = standin::environment(tiny_job("j", "true"), {{"run-token", "/tmp/root/j/volumes/run-token"}});
  EXPECT_EQ(env.at("ODS_RUN_TOKEN_FILE"), "/tmp/root/j/volumes/run-token/token");
}

class KubeletStandinTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() / ("kubelet-standin-" + std::to_string(::getpid()) + "-" +
                                                      ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  std::filesystem::path root_;
  FakeClient client_;
};

TEST_F(KubeletStandinTest, ARunnerJobRunsWithItsSecretsAsFilesAndItsFailureFailsTheRun) {
  using namespace ods::control;
  const Json project = {{"apiVersion", "ods.dev/v1alpha1"},
                        {"kind", "DbtProject"},
                        {"metadata", {{"name", "shop"}, {"namespace", "ns"}}},
                        {"spec",
                         {{"source", {{"image", {{"path", "/project"}}}}},
                          {"image", "runner"},
                          {"profileSecretRef", {{"name", "profile"}}},
                          {"target", "prod"}}}};
  ASSERT_TRUE(client_.create(res::kDbtProjects, "ns", project));
  ASSERT_TRUE(client_.create(res::kSecrets, "ns",
                             {{"metadata", {{"name", "profile"}}}, {"data", {{"profiles.yml", "c2hvcDogcHJvZAo="}}}}));
  ASSERT_TRUE(client_.create(res::kDbtRuns, "ns",
                             {{"apiVersion", "ods.dev/v1alpha1"},
                              {"kind", "DbtRun"},
                              {"metadata", {{"name", "r1"}}},
                              {"spec", {{"projectRef", {{"name", "shop"}}}}}}));
  Clock& clock = system_clock();
  EventRecorder events(client_, clock);
  DbtRunReconciler reconciler(
      client_, clock, events, [](const Json&) { return "secret-token"; }, RunJobOptions{.callback_url = "http://cb"});
  ASSERT_TRUE(reconciler.reconcile({"ns", "r1"}));

  Json job = *client_.get(res::kJobs, {"ns", "r1"});
  // The container's `ods pod` stands for this check: the token and the profile are where the
  // environment says, then exit 3.
  const std::string script =
      "test \"$(cat \"$ODS_RUN_TOKEN_FILE\")\" = secret-token || exit 10; "
      "grep -q 'shop: prod' \"$DBT_PROFILES_DIR/profiles.yml\" || exit 11; "
      "test \"$ODS_RUN\" = ns/r1 || exit 12; exit 3";
  KubeletStandin standin(client_, {.namespace_name = "ns", .root = root_, .executables = {{"ods", "/bin/sh"}}});
  job["spec"]["template"]["spec"]["containers"][0]["args"] = {"-c", script};
  job["spec"]["template"]["spec"]["containers"][0]["command"] = {"ods"};
  auto result = standin.run_job(job);
  ASSERT_TRUE(result) << result.error();
  EXPECT_EQ(result->exit_code, 3);

  const Json stored_job = *client_.get(res::kJobs, {"ns", "r1"});
  EXPECT_EQ(stored_job["status"]["failed"], 1);
  EXPECT_EQ(stored_job["status"]["conditions"][1]["reason"], "BackoffLimitExceeded");
  const auto pods = client_.objects(res::kPods, "ns");
  ASSERT_EQ(pods.size(), 1u);
  EXPECT_EQ(pods[0]["status"]["phase"], "Failed");
  EXPECT_EQ(pods[0]["status"]["containerStatuses"][0]["state"]["terminated"]["exitCode"], 3);

  ASSERT_TRUE(reconciler.reconcile({"ns", "r1"}));
  const Json run = *client_.get(res::kDbtRuns, {"ns", "r1"});
  EXPECT_EQ(run["status"]["phase"], "Failed");
  EXPECT_EQ(run["status"]["reason"], "BackoffLimitExceeded");
}

TEST_F(KubeletStandinTest, ActiveDeadlineKillsTheProcessAndFailsTheJob) {
  ASSERT_TRUE(client_.create(res::kSecrets, "ns", {{"metadata", {{"name", "tok"}}}, {"stringData", {{"token", "t"}}}}));
  Json job = tiny_job("slow", "sleep 60");
  job["spec"]["activeDeadlineSeconds"] = 1;
  ASSERT_TRUE(client_.create(res::kJobs, "ns", job));
  KubeletStandin standin(client_, {.namespace_name = "ns", .root = root_, .executables = {}});
  auto result = standin.run_job(*client_.get(res::kJobs, {"ns", "slow"}));
  ASSERT_TRUE(result) << result.error();
  EXPECT_EQ(result->ending, PodResult::Ending::deadline_exceeded);
  EXPECT_EQ((*client_.get(res::kJobs, {"ns", "slow"}))["status"]["conditions"][1]["reason"], "DeadlineExceeded");
}

TEST_F(KubeletStandinTest, AnEnvSecretKeyRefIsResolvedAndAMissingSecretWaitsInCreateContainerConfigError) {
  ASSERT_TRUE(client_.create(res::kSecrets, "ns", {{"metadata", {{"name", "tok"}}}, {"stringData", {{"token", "t"}}}}));
  Json job = tiny_job("keyed", "test \"$KEY\" = the-value || exit 9");
  job["spec"]["activeDeadlineSeconds"] = 60;
  job["spec"]["template"]["spec"]["containers"][0]["env"].push_back(
      {{"name", "KEY"}, {"valueFrom", {{"secretKeyRef", {{"name", "keys"}, {"key", "k"}}}}}});
  ASSERT_TRUE(client_.create(res::kJobs, "ns", job));
  KubeletStandin standin(client_, {.namespace_name = "ns", .root = root_, .executables = {}});
  std::expected<PodResult, std::string> result;
  std::thread running([&] { result = standin.run_job(*client_.get(res::kJobs, {"ns", "keyed"})); });
  auto waiting_message = [&]() -> std::string {
    auto pods = client_.list(res::kPods, "ns", {});
    if (!pods || (*pods)["items"].empty()) return "";
    const Json pod = (*pods)["items"][0];
    const Json::json_pointer at("/status/containerStatuses/0/state/waiting/message");
    return pod.contains(at) ? pod.at(at).get<std::string>() : "";
  };
  EXPECT_TRUE(eventually(std::chrono::seconds(60), [&] { return waiting_message() == "secret \"keys\" not found"; }));
  ASSERT_TRUE(client_.create(res::kSecrets, "ns", {{"metadata", {{"name", "keys"}}}, {"stringData", {{"j", "x"}}}}));
  EXPECT_TRUE(eventually(std::chrono::seconds(60),
                         [&] { return waiting_message() == "couldn't find key k in Secret ns/keys"; }));
  ASSERT_TRUE(
      client_.replace(res::kSecrets, {"ns", "keys"},
                      {{"metadata", {{"name", "keys"}, {"namespace", "ns"}}}, {"stringData", {{"k", "the-value"}}}},
                      ods::kube::Subresource::none));
  running.join();
  ASSERT_TRUE(result) << result.error();
  EXPECT_EQ(result->ending, PodResult::Ending::exited);
  EXPECT_EQ(result->exit_code, 0);  // it ran with the Secret's value
}

TEST_F(KubeletStandinTest, WatchingRunsEachNewJobOnce) {
  ASSERT_TRUE(client_.create(res::kSecrets, "ns", {{"metadata", {{"name", "tok"}}}, {"stringData", {{"token", "t"}}}}));
  ASSERT_TRUE(client_.create(res::kJobs, "ns", tiny_job("before", "exit 0")));  // listed
  KubeletStandin standin(client_, {.namespace_name = "ns", .root = root_, .executables = {}});
  standin.start();
  ASSERT_TRUE(client_.create(res::kJobs, "ns", tiny_job("after", "test -s \"$ODS_RUN_TOKEN_FILE\"")));  // watched
  auto finished = [&](const char* name) {
    const Json job = *client_.get(res::kJobs, {"ns", name});
    return job.contains("status") && job["status"].contains("conditions");
  };
  for (int i = 0; i < 3000 && !(finished("before") && finished("after")); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  standin.stop();
  EXPECT_TRUE(standin.problems().empty()) << standin.problems().front();
  EXPECT_EQ(standin.jobs_started(), 2);
  EXPECT_EQ((*client_.get(res::kJobs, {"ns", "before"}))["status"]["conditions"][1]["type"], "Complete");
  EXPECT_EQ((*client_.get(res::kJobs, {"ns", "after"}))["status"]["conditions"][1]["type"], "Complete");
  EXPECT_EQ(client_.objects(res::kPods, "ns").size(), 2u);
}

TEST_F(KubeletStandinTest, DeletingAJobKillsItsProcess) {
  ASSERT_TRUE(client_.create(res::kSecrets, "ns", {{"metadata", {{"name", "tok"}}}, {"stringData", {{"token", "t"}}}}));
  KubeletStandin standin(client_, {.namespace_name = "ns", .root = root_, .executables = {}});
  standin.start();
  ASSERT_TRUE(client_.create(res::kJobs, "ns", tiny_job("long", "sleep 600")));
  for (int i = 0; i < 3000 && standin.processes_running() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(standin.processes_running(), 1);
  ASSERT_TRUE(client_.remove(res::kJobs, {"ns", "long"}));
  for (int i = 0; i < 3000 && standin.processes_running() == 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(standin.processes_running(), 0);  // killed well before its 600 s
  standin.stop();
  EXPECT_TRUE(standin.problems().empty()) << standin.problems().front();
}

}  // namespace
}  // namespace ods::testing
