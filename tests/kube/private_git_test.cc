// A private git source (docs/kubernetes.md, "Private git sources"): the DbtProject names a
// Secret with the repository's credentials, the operator mounts it into the runner pod only, and
// `ods pod` fetches with it. On the real kube-apiserver, with the DbtRun reconciler, the kubelet
// stand-in running the real `ods pod`, and a loopback HTTPS git server that answers 401 without
// the credential: the fetch works with the Secret and is refused without it or with a wrong one,
// and the credential is in no pod log, no DbtRun status, no Event, no Job or Pod.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "harness/git_https_server.h"
#include "harness/kubelet_standin.h"
#include "harness/source_paths.h"
#include "kube/kube_client_fixture.h"
#include "ods/control/run_reconciler.h"

namespace ods::testing {
namespace {

namespace res = kube::resources;

constexpr const char* kPassword = "pw-9f8e7d6c5b4a-private";

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

class KubePrivateGitTest : public KubeClientTest {
 protected:
  void SetUp() override {
    KubeClientTest::SetUp();
    namespace_ = make_namespace("privategit");
    dir_ = plane().dir() / namespace_;
    std::filesystem::create_directories(dir_);
    auto started = server_.start({.dir = dir_ / "git",
                                  .files = {{"analytics/dbt_project.yml", "name: shop\nprofile: shop\n"}},
                                  .basic_credential = std::string("ods:") + kPassword,
                                  .bearer_token = {}});
    ASSERT_TRUE(started) << started.error();
    // The pod's /tmp is a volume (the stand-in maps paths under it into the pod's folder), so
    // the certificate the pod trusts lives outside /tmp, in the build tree.
    ca_file_ = bin_dir().parent_path() / ("private-git-ca-" + namespace_ + ".pem");
    std::filesystem::copy_file(server_.certificate(), ca_file_, std::filesystem::copy_options::overwrite_existing);
    ASSERT_TRUE(client().create(res::kSecrets, namespace_, runner_profile_secret()));
  }

  // A project reading the server's repository with the git Secret `secret` (none when empty),
  // and a run of it.
  void create_project_and_run(const std::string& name, const std::string& secret) {
    Json git = {{"url", server_.url()}, {"revision", "main"}, {"path", "analytics"}};
    if (!secret.empty()) git["secretRef"] = {{"name", secret}};
    Json project = runner_project(name, {{"git", git}}, {{"runTimeout", "5m"}});
    // The stand-in's pod trusts the server's certificate; dbt is a stub that fails, so the pod
    // ends right after the checkout (no callback server in this test).
    project["spec"]["runnerPodTemplate"] = {{"env",
                                             {{{"name", "GIT_SSL_CAINFO"}, {"value", ca_path_in_pod()}},
                                              {{"name", "ODS_DBT"}, {"value", "/bin/false"}},
                                              {{"name", "ODS_CALLBACK_RETRY_SECONDS"}, {"value", "0"}}}}};
    ASSERT_TRUE(client().create(res::kDbtProjects, namespace_, project));
    const Json run = runner_run(name + "-run", name);
    ASSERT_TRUE(client().create(res::kDbtRuns, namespace_, run));
  }

  // The stand-in rewrites an environment value under one of the pod's mount paths (/tmp among
  // them) into the pod's own folder, so with the build tree under /tmp (a clone there) the pod
  // would look for the certificate in its /tmp volume and git would fail with "Problem with the
  // SSL CA cert". /proc/self/root/<path> names the same file, under no mount path.
  std::string ca_path_in_pod() const {
    const std::string path = ca_file_.string();
    return path.starts_with("/tmp/") ? "/proc/self/root" + path : path;
  }

  void create_git_secret(const std::string& name, const std::string& password) {
    const Json secret = {{"apiVersion", "v1"},
                         {"kind", "Secret"},
                         {"metadata", {{"name", name}}},
                         {"stringData", {{"username", "ods"}, {"password", password}}}};
    ASSERT_TRUE(client().create(res::kSecrets, namespace_, secret));
  }

  // Reconciles the runs until they finish while the stand-in runs their Jobs with the real ods.
  void run_all(const std::vector<std::string>& runs) {
    ods::Clock& clock = ods::system_clock();
    control::EventRecorder events(client(), clock);
    control::DbtRunReconciler reconciler(client(), clock, events,
                                         [](const Json&) { return std::string("token-of-the-run"); },
                                         {.callback_url = "http://127.0.0.1:1"});
    KubeletStandin standin(
        client(),
        {.namespace_name = namespace_, .root = dir_ / "pods", .executables = {{"ods", (bin_dir() / "ods").string()}}});
    standin.start();
    const bool finished = eventually(
        [&] {
          bool all = true;
          for (const std::string& name : runs) {
            auto reconciled = reconciler.reconcile({namespace_, name});
            EXPECT_TRUE(reconciled) << reconciled.error().message;
            const std::string phase = run(name).value("status", Json::object()).value("phase", "");
            all = all && (phase == "Succeeded" || phase == "Failed");
          }
          return all;
        },
        std::chrono::seconds(120));
    standin.stop();
    EXPECT_TRUE(finished) << "the runs did not finish";
    EXPECT_TRUE(standin.problems().empty()) << standin.problems().front();
  }

  Json run(const std::string& name) { return *client().get(res::kDbtRuns, {namespace_, name}); }
  std::string pod_log(const std::string& run_name) {
    return read_file(dir_ / "pods" / (run_name + "-standin") / "log");
  }

  void TearDown() override { std::filesystem::remove(ca_file_); }

  std::string namespace_;
  std::filesystem::path dir_, ca_file_;
  GitHttpsServer server_;
};

TEST_F(KubePrivateGitTest, TheFetchWorksWithTheSecretIsRefusedWithoutItAndTheCredentialIsNowhere) {
  create_git_secret("shop-git", kPassword);
  create_git_secret("shop-git-wrong", "not-the-password");
  create_project_and_run("private", "shop-git");
  create_project_and_run("wrong", "shop-git-wrong");
  create_project_and_run("public", "");
  run_all({"private-run", "wrong-run", "public-run"});

  // With the Secret: checked out (the pod then stops at the stub dbt).
  const std::string private_log = pod_log("private-run");
  EXPECT_NE(private_log.find("checking out " + server_.url() + " at main (git, with the source's Secret)"),
            std::string::npos)
      << private_log;
  EXPECT_EQ(private_log.find("git fetch"), std::string::npos) << private_log;
  EXPECT_TRUE(std::filesystem::exists(dir_ / "pods" / "private-run-standin" / "volumes" / "work" / "source" /
                                      "analytics" / "dbt_project.yml"))
      << private_log;
  // The Secret is mounted into the pod only: a volume naming it, no value in the Job.
  const Json job = *client().get(res::kJobs, {namespace_, "private-run"});
  bool mounted = false;
  for (const Json& volume : job["spec"]["template"]["spec"]["volumes"]) {
    mounted = mounted || volume.value("secret", Json::object()).value("secretName", "") == "shop-git";
  }
  EXPECT_TRUE(mounted) << job.dump();

  // Without it, or with a wrong one: refused by the server, and the run fails saying so.
  for (const char* name : {"wrong-run", "public-run"}) {
    const std::string log = pod_log(name);
    EXPECT_NE(log.find("git fetch of " + server_.url() + " at main failed"), std::string::npos) << name << ": " << log;
    EXPECT_EQ(run(name)["status"]["reason"], "BackoffLimitExceeded") << run(name).dump();
  }
  int good = 0, refused_none = 0, refused_wrong = 0;
  for (const Json& request : server_.requests()) {
    if (request["auth"] == "good" && request["status"] == 200) ++good;
    if (request["auth"] == "none" && request["status"] == 401) ++refused_none;
    if (request["auth"] == "wrong" && request["status"] == 401) ++refused_wrong;
  }
  EXPECT_GE(good, 2) << "the refs and the pack, fetched with the credential";
  EXPECT_GE(refused_none, 1);
  EXPECT_GE(refused_wrong, 1);

  // The credential (and its Basic encoding) appears in no log, status, Event, Job or Pod.
  const std::string basic = "b2RzOnB3LTlmOGU3ZDZjNWI0YS1wcml2YXRl";  // base64("ods:" + kPassword)
  std::vector<std::pair<std::string, std::string>> places;
  for (const char* name : {"private-run", "wrong-run", "public-run"}) {
    places.emplace_back(std::string("the pod log of ") + name, pod_log(name));
  }
  places.emplace_back("the DbtRuns", plane().kubectl({"-n", namespace_, "get", "dbtruns", "-o", "json"}).output);
  places.emplace_back("the Events", plane().kubectl({"-n", namespace_, "get", "events", "-o", "json"}).output);
  places.emplace_back("the Jobs", plane().kubectl({"-n", namespace_, "get", "jobs", "-o", "json"}).output);
  places.emplace_back("the Pods", plane().kubectl({"-n", namespace_, "get", "pods", "-o", "json"}).output);
  places.emplace_back("kubectl describe dbtrun",
                      plane().kubectl({"-n", namespace_, "describe", "dbtrun", "private-run"}).output);
  for (const auto& [where, text] : places) {
    EXPECT_FALSE(text.empty()) << where << " is empty: nothing was searched";
    EXPECT_EQ(text.find(kPassword), std::string::npos) << "the password is in " << where;
    EXPECT_EQ(text.find(basic), std::string::npos) << "the Basic credential is in " << where;
  }
}

}  // namespace
}  // namespace ods::testing
