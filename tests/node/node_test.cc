// The real single-node cluster (harness/kube_node.h) does what a user's cluster does, checked
// with the node's own probe image: a pod is scheduled, gets an address from the bridge and runs;
// a Service's name resolves through CoreDNS to its ClusterIP, and a connection to it reaches a
// pod behind it through kube-proxy's rules; the project's images run from their archives; stopping
// the node leaves nothing on the host.
// Shard `node` (scripts/test-tiers.py); runs as root, serially.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>

#include "harness/eventually.h"
#include "harness/kube_control_plane.h"
#include "harness/kube_node.h"

namespace ods::testing {
namespace {

using namespace std::chrono_literals;

class RealNode : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto address = host_address();
    ASSERT_TRUE(address) << address.error();
    KubeControlPlane::Options options;
    options.node_ip = *address;
    auto plane = KubeControlPlane::start(options);
    ASSERT_TRUE(plane) << plane.error();
    plane_ = std::move(*plane);
    auto node = KubeNode::start(*plane_);
    ASSERT_TRUE(node) << node.error();
    node_ = std::move(*node);
  }
  static void TearDownTestSuite() {
    node_.reset();
    plane_.reset();
  }
  void SetUp() override {
    if (!node_) GTEST_FAIL() << "the node did not start (see SetUpTestSuite's failure above)";
  }

  static ProcessResult kubectl(const std::vector<std::string>& args) { return plane_->kubectl(args); }
  static ProcessResult apply(const std::string& manifest) {
    const auto file = node_->dir() / "manifest.yaml";
    std::ofstream(file, std::ios::trunc) << manifest;
    return kubectl({"apply", "-f", file.string()});
  }
  static std::string jsonpath(const std::string& kind_name, const std::string& path) {
    ProcessResult r = kubectl({"get", kind_name, "-o", "jsonpath=" + path});
    return r.exit_code == 0 ? r.output : "";
  }
  // The pod's phase once it is `phase` (or the last one seen after `limit`).
  static bool pod_reaches(const std::string& pod, const std::string& phase, std::chrono::seconds limit) {
    return eventually(
        limit, [&] { return jsonpath("pod/" + pod, "{.status.phase}") == phase; }, 500ms);
  }
  static std::string diagnostics(const std::string& pod) {
    return kubectl({"describe", "pod", pod}).output + "\n" + node_->logs_tail();
  }

  static std::unique_ptr<KubeControlPlane> plane_;
  static std::unique_ptr<KubeNode> node_;
};

std::unique_ptr<KubeControlPlane> RealNode::plane_;
std::unique_ptr<KubeNode> RealNode::node_;

std::string probe_pod(const std::string& name, const std::string& image, const std::string& args,
                      const std::string& restart, const std::string& labels = "{}") {
  return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", labels: " + labels +
         "}\nspec:\n  restartPolicy: " + restart +
         "\n  terminationGracePeriodSeconds: 1\n  containers:\n  - name: probe\n    image: " + image +
         "\n    imagePullPolicy: Never\n    args: " + args + "\n";
}

TEST_F(RealNode, APodIsScheduledGetsABridgeAddressAndRuns) {
  ASSERT_EQ(apply(probe_pod("hello", node_->probe_image(), "[serve, \"8080\", hello]", "Always")).exit_code, 0);
  ASSERT_TRUE(pod_reaches("hello", "Running", 180s)) << diagnostics("hello");
  EXPECT_EQ(jsonpath("pod/hello", "{.spec.nodeName}"), node_->name());
  const std::string ip = jsonpath("pod/hello", "{.status.podIP}");
  const std::string prefix = node_->pod_cidr().substr(0, node_->pod_cidr().rfind('.') + 1);
  EXPECT_TRUE(ip.starts_with(prefix)) << "pod IP " << ip << " is not in " << node_->pod_cidr();
  // Its log, through the apiserver and the kubelet, as a user reads it.
  EXPECT_TRUE(eventually(
      30s,
      [&] {
        return kubectl({"logs", "hello"}).output.find("listening on port 8080") != std::string::npos;
      },
      500ms))
      << kubectl({"logs", "hello"}).errors;
  EXPECT_EQ(kubectl({"delete", "pod", "hello", "--wait=true", "--timeout=60s"}).exit_code, 0);
}

TEST_F(RealNode, AServiceNameResolvesThroughCoreDnsAndRoutesThroughKubeProxy) {
  // Two backends behind one Service; a client pod that knows only the Service's name.
  for (const std::string name : {"echo-a", "echo-b"})
    ASSERT_EQ(
        apply(probe_pod(name, node_->probe_image(), "[serve, \"8080\", echo]", "Always", "{app: echo}")).exit_code, 0);
  ASSERT_EQ(apply("apiVersion: v1\nkind: Service\nmetadata: {name: echo}\nspec:\n  selector: {app: echo}\n"
                  "  ports: [{port: 80, targetPort: 8080}]\n")
                .exit_code,
            0);
  ASSERT_TRUE(pod_reaches("echo-a", "Running", 180s)) << diagnostics("echo-a");
  ASSERT_TRUE(pod_reaches("echo-b", "Running", 180s)) << diagnostics("echo-b");
  const std::string cluster_ip = jsonpath("service/echo", "{.spec.clusterIP}");
  ASSERT_FALSE(cluster_ip.empty());

  ASSERT_EQ(apply(probe_pod("client", node_->probe_image(), "[get, echo, \"80\"]", "Never")).exit_code, 0);
  ASSERT_TRUE(pod_reaches("client", "Succeeded", 180s)) << diagnostics("client") << kubectl({"logs", "client"}).output;
  const std::string log = kubectl({"logs", "client"}).output;
  // The short name went through the pod's search path to CoreDNS, which answered the ClusterIP
  // (never a pod IP: the connection went through kube-proxy's DNAT to a backend).
  EXPECT_NE(log.find("resolved echo to " + cluster_ip + "\n"), std::string::npos) << log;
  EXPECT_NE(log.find("HTTP/1.0 200 OK"), std::string::npos) << log;
  EXPECT_TRUE(log.find("echo from echo-a") != std::string::npos || log.find("echo from echo-b") != std::string::npos)
      << log;

  // A name that does not exist fails (the probe gives up with the resolver's answer), so the
  // success above is not the probe's doing.
  ASSERT_EQ(apply(probe_pod("lost", node_->probe_image(), "[get, nothing-here, \"80\", \"5\"]", "Never")).exit_code, 0);
  ASSERT_TRUE(pod_reaches("lost", "Failed", 120s)) << diagnostics("lost");
  const std::string lost_log = kubectl({"logs", "lost"}).output;
  EXPECT_NE(lost_log.find("gave up: cannot resolve nothing-here"), std::string::npos) << lost_log;
  EXPECT_EQ(kubectl({"delete", "pods", "echo-a", "echo-b", "client", "lost", "--wait=true", "--timeout=60s"}).exit_code,
            0);
}

// The project's own images (scripts/images.sh, OCI archives; the ctest fixture
// node_project_images builds them and names the directory in $ODS_PROJECT_IMAGES_DIR) imported
// into containerd as a cluster without a registry gets them: the runner's `ods` runs in a pod,
// and the operator's pod reaches the API server from inside the cluster — the `kubernetes`
// Service through kube-proxy, its ServiceAccount token from the controller-manager, the CA from
// kube-root-ca.crt — and is told, as that ServiceAccount, that it may not read the Secret it
// names (no Role grants it: the chart's RBAC is not installed here).
TEST_F(RealNode, TheProjectsImagesRunInPodsAndTheOperatorReachesTheApiServerAsItsServiceAccount) {
  const char* dir = std::getenv("ODS_PROJECT_IMAGES_DIR");
  ASSERT_TRUE(dir && *dir) << "ODS_PROJECT_IMAGES_DIR is not set: run through ctest (fixture node_project_images), or "
                              "set it to the --out directory of scripts/images.sh";
  std::ifstream list(std::filesystem::path(dir) / "images.txt");
  std::map<std::string, std::string> images;  // operator|runner -> name:tag
  for (std::string name, id, archive, digest; list >> name >> id >> archive >> digest;) {
    auto imported = node_->import_image(std::filesystem::path(dir) / archive);
    ASSERT_TRUE(imported) << imported.error();
    images[name.find("ods-operator:") != std::string::npos ? "operator" : "runner"] = name;
  }
  ASSERT_EQ(images.size(), 2u) << "images.txt in " << dir << " names " << images.size() << " of the 2 images";

  ASSERT_EQ(apply("apiVersion: v1\nkind: Pod\nmetadata: {name: runner-version}\nspec:\n  restartPolicy: Never\n"
                  "  containers:\n  - name: runner\n    image: " +
                  images["runner"] + "\n    imagePullPolicy: Never\n    command: [ods, --version]\n")
                .exit_code,
            0);
  ASSERT_TRUE(pod_reaches("runner-version", "Succeeded", 180s)) << diagnostics("runner-version");
  EXPECT_TRUE(kubectl({"logs", "runner-version"}).output.starts_with("ods "))
      << kubectl({"logs", "runner-version"}).output;

  ASSERT_EQ(
      apply("apiVersion: v1\nkind: Pod\nmetadata: {name: operator-alone}\nspec:\n  restartPolicy: Never\n"
            "  containers:\n  - name: operator\n    image: " +
            images["operator"] +
            "\n    imagePullPolicy: Never\n    args: [--state-secret, default/not-granted, --callback-key-secret, "
            "default/not-granted, --callback-url, \"http://ods.default.svc:8081\", --no-leader-elect]\n")
          .exit_code,
      0);
  ASSERT_TRUE(pod_reaches("operator-alone", "Failed", 180s)) << diagnostics("operator-alone");
  const std::string log = kubectl({"logs", "operator-alone"}).output;
  EXPECT_NE(log.find("403"), std::string::npos) << log;
  EXPECT_NE(log.find("system:serviceaccount:default:default"), std::string::npos) << log;
  EXPECT_EQ(kubectl({"delete", "pods", "runner-version", "operator-alone", "--wait=true", "--timeout=60s"}).exit_code,
            0);
}

// Last: stop() must leave the host as it found it (no processes, mounts, bridge, rules).
TEST_F(RealNode, StoppingTheNodeLeavesNothingBehind) {
  ASSERT_EQ(apply(probe_pod("left-running", node_->probe_image(), "[serve, \"8080\", bye]", "Always")).exit_code, 0);
  ASSERT_TRUE(pod_reaches("left-running", "Running", 180s)) << diagnostics("left-running");
  const std::string socket = (node_->dir() / "containerd" / "containerd.sock").string();
  const std::string bridge = node_->bridge();

  const auto left = node_->stop();
  for (const auto& l : left) ADD_FAILURE() << "left behind: " << l;
  EXPECT_NE(run_process({"ip", "link", "show", bridge}, "/").exit_code, 0) << "bridge " << bridge << " still there";
  for (const char* table : {"filter", "nat", "mangle"}) {
    const std::string rules = run_process({"iptables", "-t", table, "-S"}, "/").output;
    EXPECT_EQ(rules.find("KUBE-"), std::string::npos) << "Kubernetes' chains left in table " << table << ":\n" << rules;
  }
  const std::string nat = run_process({"iptables", "-t", "nat", "-S"}, "/").output;
  EXPECT_EQ(nat.find(node_->pod_cidr().substr(0, node_->pod_cidr().rfind('.') + 1)), std::string::npos) << nat;
  std::ifstream mountinfo("/proc/self/mountinfo");
  std::string mounts((std::istreambuf_iterator<char>(mountinfo)), std::istreambuf_iterator<char>());
  EXPECT_EQ(mounts.find(node_->dir().string()), std::string::npos) << "mounts left under " << node_->dir();
  ProcessResult shims = run_process({"pgrep", "-f", socket}, "/");
  EXPECT_NE(shims.exit_code, 0) << "processes still name " << socket << ": " << shims.output;
}

}  // namespace
}  // namespace ods::testing
