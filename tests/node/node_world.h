#pragma once
// The world of the real node's chart suites (tests/node/chart_*_test.cc, quickstart_test.cc):
// a real single-node cluster (harness/kube_node.h) with what a platform team has before it
// installs ODS:
//   - the project's images (scripts/images.sh, $ODS_PROJECT_IMAGES_DIR) and the test PostgreSQL
//     image (scripts/images.sh --only postgres, $ODS_TEST_POSTGRES_IMAGE_DIR) imported into
//     containerd (no registry);
//   - PostgreSQL running IN the cluster: StatefulSet `postgres` in namespace `databases`, its
//     superuser password in a Secret, databases `ods` (the state store) and `shop` (the
//     warehouse, the raw tables of examples/shop loaded by examples/shop/scripts/generate_data.py);
//   - examples/shop in a git repository served over HTTPS on the node's address
//     (harness/git_https_server.h), with Basic credentials and a self-signed certificate: the
//     runner pods fetch it with a git Secret holding `username`, `password` and `ca.crt`. The
//     repository has one model more than examples/shop, node_test_slow (no upstream, so no
//     selection of the quickstart picks it): it sleeps $ODS_TEST_SLOW_SECONDS (default 0) in
//     PostgreSQL, so that a run stays in flight while a test rolls the operator out or deletes
//     its leader. examples/shop_packaged is the same project declaring a git package, helpers/
//     of the same repository (packages_cache_test.cc); examples/shop_steady is examples/shop
//     without node_test_slow, for runs where nothing changes (pod_fast_path_test.cc).
// start() returns once all of that is up; the destructor stops the node and the control plane.
// Not thread-safe; one world (one node) per machine at a time.
#include <gtest/gtest.h>

#include <chrono>
#include <expected>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "harness/git_https_server.h"
#include "harness/kube_control_plane.h"
#include "harness/kube_node.h"

namespace ods::testing {

inline constexpr const char* kWarehouseHost = "postgres.databases.svc.cluster.local";

class NodeWorld {
 public:
  [[nodiscard]] static std::expected<std::unique_ptr<NodeWorld>, std::string> start();
  ~NodeWorld();

  KubeControlPlane& plane() { return *plane_; }
  KubeNode& node() { return *node_; }
  // The imported images by role: "operator", "runner", "postgres" -> name:tag.
  const std::string& image(const std::string& role) const { return images_.at(role); }
  // The operator image's repository and tag (for helm --set), e.g. localhost/ods-operator, node-test.
  std::string operator_repository() const;
  std::string operator_tag() const;
  // The helm --set arguments naming the images built here: the operator's (pullPolicy Never) and the
  // runner's repository and tag, which the chart's default runnerPolicy.allowedImages allows.
  std::vector<std::string> chart_image_values() const;
  // The superuser password of the in-cluster PostgreSQL.
  const std::string& postgres_password() const { return postgres_password_; }
  // A libpq DSN of database `database` through the Service name (from inside the cluster).
  std::string cluster_dsn(const std::string& database) const;
  // The git repository's URL (https://<node ip>:<port>/shop.git), its path to examples/shop
  // (examples/shop) and the git Secret's contents (username, password, ca.crt).
  std::string git_url() const { return git_.url(); }
  std::map<std::string, std::string> git_secret_data() const;
  // The same URL with the Basic credentials in it (https://user:password@host:port/shop.git), for a
  // git client without the Secret (dbt deps fetching the repository's helpers/ package).
  std::string git_url_with_credentials() const;
  const std::filesystem::path& dir() const { return dir_; }

  ProcessResult kubectl(const std::vector<std::string>& args) const { return plane_->kubectl(args); }
  // kubectl apply -f of `manifest` (written to a file).
  ProcessResult apply(const std::string& manifest, const std::string& namespace_name = "") const;
  // `kubectl get <what> -o jsonpath=<path>`, "" on error.
  std::string jsonpath(const std::vector<std::string>& what, const std::string& path) const;
  // helm with the cluster's kubeconfig; run in the source tree (helm/ods is a relative path).
  ProcessResult helm(const std::vector<std::string>& args) const;
  // psql -tA on database `database` inside the PostgreSQL pod; stdout.
  ProcessResult psql(const std::string& database, const std::string& sql) const;
  // examples/shop/scripts/generate_data.py --postgres <the shop database> with `args` (from the
  // host, to the pod's address).
  ProcessResult generate_shop_data(const std::vector<std::string>& args) const;

  // Polls `condition` every second until it holds or `limit` passes.
  static bool wait(std::chrono::seconds limit, const std::function<bool()>& condition);
  // status.phase of DbtRun `name` in `namespace_name`.
  std::string run_phase(const std::string& namespace_name, const std::string& name) const;
  // Waits until the run is Succeeded or Failed; its phase (or the last seen).
  std::string wait_run_finished(const std::string& namespace_name, const std::string& name,
                                std::chrono::seconds limit = std::chrono::seconds(600)) const;
  // The names of the DbtRuns of `project`, oldest first.
  std::vector<std::string> runs_of(const std::string& namespace_name, const std::string& project) const;
  // describe of the runs, the pods of `namespace_name` and ods-system, the operator's logs and the
  // node's components' log tails: for a failing test's message.
  std::string diagnostics(const std::string& namespace_name) const;

 private:
  NodeWorld() = default;
  std::expected<void, std::string> import_images();
  std::expected<void, std::string> start_postgres();
  std::expected<void, std::string> start_git_server();

  std::filesystem::path dir_;
  std::unique_ptr<KubeControlPlane> plane_;
  std::unique_ptr<KubeNode> node_;
  std::filesystem::path helm_;
  std::map<std::string, std::string> images_;
  std::string postgres_password_ = "node-Pg-Pw-5e1f07";
  std::string postgres_pod_ip_;
  GitHttpsServer git_;
};

}  // namespace ods::testing

namespace ods::testing {

// The one world of the test process, started by a gtest Environment before the first test
// (node_world_environment.cc) and stopped after the last; nullptr when it failed to start (then
// world_start_error() says why and every test fails with it).
NodeWorld* shared_world();
const std::string& world_start_error();

// What a platform team does before `helm install`: namespace ods-system and its Secrets ods-state
// (the state store's DSN, database `ods` of the in-cluster PostgreSQL) and ods-callback-key.
[[nodiscard]] std::expected<void, std::string> create_operator_namespace(NodeWorld& world);
// The chart installed as release `ods` in ods-system (create_operator_namespace() first) with the
// images built here, `helm install --wait`, unless that release is already deployed.
[[nodiscard]] std::expected<void, std::string> ensure_operator_installed(NodeWorld& world);
// What a team does for examples/shop in `namespace_name`: the namespace, the dbt profile Secret
// shop-dbt-profile (target pg, the in-cluster warehouse), the digest key shop-digest-key, the git
// Secret shop-git (username, password, ca.crt of the test git server).
[[nodiscard]] std::expected<void, std::string> create_shop_secrets(NodeWorld& world, const std::string& namespace_name);
// The DbtProject `name` of examples/shop from the git server, built into the warehouse; YAML.
// `resources`: the runner container's (flow-style YAML); `extra_spec`: more lines of spec.
struct ShopProjectOptions {
  std::string profile = "shop-dbt-profile";    // spec.profileSecretRef
  std::string digest_key = "shop-digest-key";  // spec.digestKeySecretRef
  int slow_seconds = 0;                        // > 0: the test-only model node_test_slow takes that long to build
  std::string path = "examples/shop";          // spec.source.git.path (examples/shop_packaged: with a package;
                                               // examples/shop_steady: without node_test_slow)
  std::vector<std::pair<std::string, std::string>> env = {};  // spec.runnerPodTemplate.env
};
std::string shop_project(NodeWorld& world, const std::string& name, const std::string& extra_spec = "",
                         const std::string& resources = "{requests: {cpu: 100m, memory: 256Mi}, limits: {memory: 1Gi}}",
                         const ShopProjectOptions& options = {});

// A file's bytes ("" when it cannot be read).
std::string read_text(const std::filesystem::path& path);

// The base fixture of the chart suites: SetUp fails the test (its body does not run) when the
// shared world did not start, saying why; w() is the world.
class NodeWorldTest : public ::testing::Test {
 protected:
  void SetUp() override;
  NodeWorld& w() { return *shared_world(); }
};

// NodeWorldTest whose SetUp also has the chart installed as the suites share it
// (ensure_operator_installed), for suites that run projects on an operator they don't install.
class InstalledOperatorTest : public NodeWorldTest {
 protected:
  void SetUp() override;
};

// InstalledOperatorTest for the suites that run projects in namespace `ns` with the packages
// cache on a folder of this machine (runner.packagesCache.hostPath): TearDown deletes the
// namespace and upgrades the release back without the cache.
class HostPathCacheTest : public InstalledOperatorTest {
 protected:
  explicit HostPathCacheTest(std::string ns) : ns_(std::move(ns)) {}
  void TearDown() override;
  // Makes <world dir>/<folder> (mode 1777, as docs/kubernetes.md says) and upgrades the release
  // with it as the cache; fails the test (ASSERT) when the upgrade fails. Returns the folder.
  std::filesystem::path use_host_path_cache(const std::string& folder);
  // The runner pod's log of run `run`.
  std::string pod_log(const std::string& run);

  std::string ns_;
};

}  // namespace ods::testing
