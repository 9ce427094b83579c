#include "kube/kube_client_fixture.h"

#include <cpprest/http_client.h>

#include <atomic>
#include <thread>

#include "harness/eventually.h"

namespace ods::testing {

namespace {

struct Shared {
  std::unique_ptr<KubeControlPlane> plane;
  std::unique_ptr<kube::Client> client;  // destroyed before the plane
  std::string error;
  bool started = false;
};

Shared& shared() {
  static Shared instance;
  return instance;
}

// Stops the shared client and control plane after the last test, while cpprestsdk's thread pool
// (a static of its own) still exists: destroyed at exit, the client would use it after its end.
class SharedTearDown : public ::testing::Environment {
 public:
  void TearDown() override {
    shared().client.reset();
    shared().plane.reset();
  }
};
[[maybe_unused]] ::testing::Environment* const kSharedTearDown =
    ::testing::AddGlobalTestEnvironment(new SharedTearDown);

// POST of a JSON body to etcd's v3 HTTP gateway; the answer, or "" after a failed expectation.
Json post_to_etcd(const std::string& etcd_url, const std::string& path, const Json& body) {
  try {
    web::http::client::http_client etcd(etcd_url);
    web::http::http_response response =
        etcd.request(web::http::methods::POST, path, body.dump(), "application/json").get();
    const std::string text = response.extract_utf8string(true).get();
    EXPECT_EQ(response.status_code(), 200) << path << ": " << text;
    return Json::parse(text, nullptr, false);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "POST " << etcd_url << path << ": " << e.what();
    return Json();
  }
}

std::string describe(const ProcessResult& r) { return "exit code " + std::to_string(r.exit_code) + ": " + r.errors; }

std::string start() {
  KubeControlPlane::Options options;
  options.extra_apiserver_flags = {"--watch-cache-sizes=configmaps#0"};
  auto started = KubeControlPlane::start(options);
  if (!started) return started.error();
  Shared& s = shared();
  s.plane = std::move(*started);
  ProcessResult applied = s.plane->kubectl({"apply", "-f", (source_dir() / "crds").string()});
  ProcessResult established = s.plane->kubectl(
      {"wait", "--for=condition=Established", "--timeout=60s", "crd/dbtprojects.ods.dev", "crd/dbtruns.ods.dev"});
  if (applied.exit_code != 0 || established.exit_code != 0)
    return "kubectl apply -f crds/: " + describe(applied) + "; kubectl wait: " + describe(established);
  auto config = kube::load_kubeconfig(s.plane->kubeconfig());
  if (!config) return config.error().message;
  auto client = kube::make_client(*config);
  if (!client) return client.error().message;
  s.client = std::move(*client);
  return "";
}

}  // namespace

void KubeClientTest::SetUpTestSuite() {
  Shared& s = shared();
  if (s.started) return;
  s.started = true;
  s.error = start();
}

void KubeClientTest::SetUp() { ASSERT_TRUE(shared().client && shared().error.empty()) << shared().error; }

KubeControlPlane& KubeClientTest::plane() { return *shared().plane; }
kube::Client& KubeClientTest::client() { return *shared().client; }

std::unique_ptr<kube::Client> KubeClientTest::client_for(const std::filesystem::path& kubeconfig) {
  auto config = kube::load_kubeconfig(kubeconfig);
  EXPECT_TRUE(config) << config.error().message;
  if (!config) return nullptr;
  auto made = kube::make_client(*config);
  EXPECT_TRUE(made) << made.error().message;
  return made ? std::move(*made) : nullptr;
}

std::string KubeClientTest::make_namespace(const std::string& prefix) {
  static std::atomic<int> counter{0};
  const std::string name = prefix + "-" + std::to_string(++counter);
  auto created = client().create(kNamespaces, "", {{"metadata", {{"name", name}}}});
  EXPECT_TRUE(created) << created.error().message;
  return name;
}

Json KubeClientTest::example(const std::string& file, const std::string& namespace_name) {
  ProcessResult r = plane().kubectl(
      {"create", "--dry-run=client", "-o", "json", "-f", (source_dir() / "crds" / "examples" / file).string()});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  Json object = Json::parse(r.output);
  object["metadata"]["namespace"] = namespace_name;
  return object;
}

std::string KubeClientTest::compact_etcd() {
  const Json range = post_to_etcd(plane().etcd_url(), "/v3/kv/range", {{"key", "AA=="}});
  if (!range.is_object() || !range.contains("header")) return "";
  const std::string revision = range["header"]["revision"];
  post_to_etcd(plane().etcd_url(), "/v3/kv/compaction", {{"revision", revision}, {"physical", true}});
  return revision;
}

bool KubeClientTest::eventually(const std::function<bool()>& done, std::chrono::seconds limit) {
  return ods::testing::eventually(limit, done, std::chrono::milliseconds(50));
}

Json config_map(const std::string& name, const std::string& value, const Json& labels) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}, {"labels", labels}}},
          {"data", {{"key", value}}}};
}

Json runner_project(const std::string& name, const Json& source, const Json& policies) {
  return {{"apiVersion", "ods.dev/v1alpha1"},
          {"kind", "DbtProject"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"source", source},
            {"image", "ghcr.io/ods-dev/ods-runner:0.1"},
            {"profileSecretRef", {{"name", "shop-profile"}}},
            {"target", "prod"},
            {"policies", policies}}}};
}

Json runner_profile_secret() {
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata", {{"name", "shop-profile"}}},
          {"stringData", {{"profiles.yml", "shop: {target: prod}\n"}}}};
}

Json runner_run(const std::string& name, const std::string& project, const Json& spec_extra) {
  Json spec = {{"projectRef", {{"name", project}}}};
  spec.merge_patch(spec_extra);
  return {{"apiVersion", "ods.dev/v1alpha1"}, {"kind", "DbtRun"}, {"metadata", {{"name", name}}}, {"spec", spec}};
}

std::string write_runner_script(const std::filesystem::path& dir, const std::string& script) {
  const auto path = dir / "ods";
  std::ofstream(path) << "#!/bin/sh\n" << script << "\n";
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return path.string();
}

}  // namespace ods::testing
