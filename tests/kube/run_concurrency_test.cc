// One run of a project at a time, manual runs included (docs/kubernetes.md, "One run at a
// time"): two DbtRuns created by hand for one project at once, reconciled by two workers as the
// controller runs them, with the kubelet stand-in running their Jobs on the real kube-apiserver.
// Under Forbid the second waits (Pending, WaitingForRun) and runs after the first; under Replace
// the newer one fails the older (Replaced) and starts once its pod is gone; at no moment do two
// unfinished runner Jobs or two live runner Pods of the project exist.
#include <gtest/gtest.h>

#include <atomic>
#include <ctime>
#include <fstream>
#include <set>
#include <thread>

#include "harness/kubelet_standin.h"
#include "kube/kube_client_fixture.h"
#include "ods/control/run_reconciler.h"

namespace ods::testing {
namespace {

namespace res = kube::resources;

std::string phase_of(const Json& run) { return run.value("status", Json::object()).value("phase", ""); }
bool finished(const Json& run) { return phase_of(run) == "Succeeded" || phase_of(run) == "Failed"; }

bool ended(const Json& object, bool is_job) {
  if (!is_job) {
    const std::string phase = object.value("status", Json::object()).value("phase", "");
    return phase == "Succeeded" || phase == "Failed";
  }
  for (const Json& condition : object.value("status", Json::object()).value("conditions", Json::array())) {
    if ((condition["type"] == "Complete" || condition["type"] == "Failed") && condition["status"] == "True")
      return true;
  }
  return false;
}

class KubeRunConcurrencyTest : public KubeClientTest {
 protected:
  void SetUp() override {
    KubeClientTest::SetUp();
    namespace_ = make_namespace("concurrency");
    dir_ = plane().dir() / namespace_;
    std::filesystem::create_directories(dir_);
  }

  // The project (policies.concurrency `policy`) and its profile; the runner's `ods` is `script`.
  void create_project(const std::string& policy, const std::string& script) {
    write_runner_script(dir_, script);
    const Json project =
        runner_project("shop", {{"image", {{"path", "/project"}}}}, {{"concurrency", policy}, {"runTimeout", "10m"}});
    const Json profile = runner_profile_secret();
    ASSERT_TRUE(client().create(res::kDbtProjects, namespace_, project));
    ASSERT_TRUE(client().create(res::kSecrets, namespace_, profile));
  }

  void create_run(const std::string& name) {
    const Json run = runner_run(name, "shop", {{"trigger", "Manual"}});
    auto created = client().create(res::kDbtRuns, namespace_, run);
    ASSERT_TRUE(created) << created.error().message;
  }

  // Now as the API server writes creationTimestamp (RFC 3339, UTC, whole seconds); same clock.
  static std::string utc_now_to_the_second() {
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
  }

  Json run(const std::string& name) { return *client().get(res::kDbtRuns, {namespace_, name}); }

  // The project's runner Jobs (is_job) or Pods that have not ended.
  int live(bool is_job) {
    auto listed = client().list(is_job ? res::kJobs : res::kPods, namespace_,
                                {.label_selector = "ods.dev/project=shop", .field_selector = {}});
    if (!listed) return -1;
    int n = 0;
    for (const Json& item : (*listed)["items"]) n += ended(item, is_job) ? 0 : 1;
    return n;
  }

  // Starts the stand-in, two reconcile workers going over every run, and a watcher counting the
  // project's live Jobs and Pods; `until` runs between checks and says when to stop.
  void run_until(const std::function<bool()>& until) {
    ods::Clock& clock = ods::system_clock();
    control::EventRecorder events(client(), clock);
    control::DbtRunReconciler reconciler(client(), clock, events,
                                         [](const Json&) { return std::string("token-of-the-run"); },
                                         {.callback_url = "http://127.0.0.1:1"});
    KubeletStandin standin(
        client(),
        {.namespace_name = namespace_, .root = dir_ / "pods", .executables = {{"ods", (dir_ / "ods").string()}}});
    standin.start();
    std::atomic<bool> stop{false};
    auto worker = [&](int offset) {
      while (!stop) {
        auto listed = client().list(res::kDbtRuns, namespace_, {});
        if (!listed) continue;
        const Json items = (*listed)["items"];
        for (std::size_t i = 0; i < items.size(); ++i) {
          const std::string name = items[(i + offset) % items.size()]["metadata"]["name"];
          std::mutex* key_lock = nullptr;  // as the controller: one key never twice at once
          {
            std::lock_guard lock(seen_mutex_);
            key_lock = &key_locks_[name];
          }
          std::unique_lock busy(*key_lock, std::try_to_lock);
          if (!busy.owns_lock()) continue;
          auto reconciled = reconciler.reconcile({namespace_, name});
          EXPECT_TRUE(reconciled) << reconciled.error().message;
          const Json now = run(name);
          std::lock_guard lock(seen_mutex_);
          reasons_seen_[name].insert(now.value("status", Json::object()).value("reason", ""));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    };
    std::thread watcher([&] {
      while (!stop) {
        max_live_jobs_ = std::max(max_live_jobs_.load(), live(true));
        max_live_pods_ = std::max(max_live_pods_.load(), live(false));
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    });
    std::thread first(worker, 0), second(worker, 1);
    const bool done = eventually(until, std::chrono::seconds(90));
    stop = true;
    first.join();
    second.join();
    watcher.join();
    standin.stop();
    EXPECT_TRUE(done) << "the runs did not end as expected: " << run("run-a").dump() << "\n"
                      << run("run-b").dump() << "\n"
                      << plane().kubectl({"-n", namespace_, "get", "pods,jobs", "-o", "wide"}).output;
    EXPECT_TRUE(standin.problems().empty()) << standin.problems().front();
  }

  std::string namespace_;
  std::filesystem::path dir_;
  std::mutex seen_mutex_;
  std::map<std::string, std::mutex> key_locks_;
  std::map<std::string, std::set<std::string>> reasons_seen_;
  std::atomic<int> max_live_jobs_{0}, max_live_pods_{0};
};

TEST_F(KubeRunConcurrencyTest, UnderForbidASecondManualRunWaitsAndRunsAfterTheFirst) {
  // A pod that finds another pod of the project running exits 42 (mkdir is atomic).
  const std::string lock = (dir_ / "lock").string();
  create_project("Forbid", "mkdir '" + lock + "' || exit 42\nsleep 2\nrmdir '" + lock + "'\nexit 0");
  create_run("run-a");
  create_run("run-b");
  run_until([&] { return finished(run("run-a")) && finished(run("run-b")); });
  // Both pods ran to their end (exit 0; no callback came, so NoResult), never side by side.
  for (const char* name : {"run-a", "run-b"}) {
    EXPECT_EQ(run(name)["status"]["reason"], "NoResult") << run(name).dump();
  }
  EXPECT_TRUE(reasons_seen_["run-b"].contains("WaitingForRun")) << "run-b never waited";
  EXPECT_FALSE(reasons_seen_["run-a"].contains("WaitingForRun")) << "run-a, the older, waited";
  EXPECT_LE(max_live_jobs_, 1);
  EXPECT_LE(max_live_pods_, 1);
  EXPECT_GE(max_live_pods_, 1) << "the watcher never saw a pod";
  const std::string started_b = run("run-b")["status"]["startTime"];
  const std::string ended_a = run("run-a")["status"]["completionTime"];
  EXPECT_GE(started_b, ended_a) << "run-b's pod started before run-a ended";
  ProcessResult events = plane().kubectl({"-n", namespace_, "get", "events"});
  EXPECT_NE(events.output.find("RunWaiting"), std::string::npos) << events.output;
}

TEST_F(KubeRunConcurrencyTest, UnderReplaceTheNewerManualRunReplacesTheOlderOnlyAfterItsPodIsGone) {
  create_project("Replace", "case \"$ODS_RUN\" in */run-a) sleep 120;; esac\nexit 0");
  create_run("run-a");
  bool second_created = false;
  run_until([&] {
    if (!second_created) {
      if (live(false) != 1) return false;  // run-a's pod runs: run-b is created in a later second
      const std::string created_a = run("run-a")["metadata"]["creationTimestamp"];
      if (utc_now_to_the_second() <= created_a) return false;
      create_run("run-b");
      second_created = true;
      return false;
    }
    return finished(run("run-a")) && finished(run("run-b"));
  });
  EXPECT_EQ(run("run-a")["status"]["reason"], "Replaced") << run("run-a").dump();
  EXPECT_NE(run("run-a")["status"]["message"].get<std::string>().find("run-b"), std::string::npos);
  EXPECT_EQ(run("run-b")["status"]["reason"], "NoResult") << run("run-b").dump();  // it ran
  EXPECT_LE(max_live_jobs_, 1);
  EXPECT_LE(max_live_pods_, 1);
}

TEST_F(KubeRunConcurrencyTest, UnderAllowTwoManualRunsRunSideBySide) {
  // Each pod waits (up to a minute) until both have started, else exits 42.
  const std::string d = dir_.string();
  create_project("Allow", "touch '" + d +
                              "/started-'\"${ODS_RUN##*/}\"\ni=0\n"
                              "while [ ! -e '" +
                              d + "/started-run-a' ] || [ ! -e '" + d +
                              "/started-run-b' ]; do\n"
                              "  i=$((i+1)); [ $i -gt 600 ] && exit 42; sleep 0.1\ndone\nexit 0");
  create_run("run-a");
  create_run("run-b");
  run_until([&] { return finished(run("run-a")) && finished(run("run-b")); });
  for (const char* name : {"run-a", "run-b"}) {
    EXPECT_EQ(run(name)["status"]["reason"], "NoResult") << run(name).dump();
  }
  EXPECT_FALSE(reasons_seen_["run-b"].contains("WaitingForRun"));
}

}  // namespace
}  // namespace ods::testing
