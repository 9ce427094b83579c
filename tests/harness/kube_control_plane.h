#pragma once
// Test harness: a real Kubernetes control plane on the loopback, as controller-runtime's envtest
// runs it: etcd and kube-apiserver, no controllers, no kubelet.
//
// start():
//   1. finds etcd, kube-apiserver and kubectl with scripts/kube-binaries.sh (built from the Go
//      module proxy and cached on first use; $ODS_KUBE_BIN_DIR overrides the cache; see
//      docs/kubernetes.md);
//   2. makes a throw-away CA and certificates (harness/kube_certificates.h);
//   3. starts etcd on two free 127.0.0.1 ports with a temp data dir (--unsafe-no-fsync) and waits
//      until GET /health answers {"health":"true"};
//   4. starts kube-apiserver on a free 127.0.0.1 secure port: RBAC authorization, client
//      certificates from the CA, service-account tokens signed with a fresh key, the
//      ServiceAccount admission plugin off (no token controller runs); waits until /readyz is ok;
//   5. writes kubeconfig() for the admin client certificate (O=system:masters: passes RBAC).
// A port lost to a race is retried with another one. The destructor (or stop()) stops
// kube-apiserver, then etcd, and removes the temp dir (kept when ODS_KEEP_TEST_DIRS is set); the
// processes also die with the test process (harness/background_process.h).
//
// No built-in controllers run: Jobs get no Pods, garbage collection and namespace deletion do
// not happen. Not thread-safe: one thread drives a control plane.
#include <chrono>
#include <expected>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "harness/background_process.h"
#include "harness/dbt_project.h"  // ProcessResult
#include "harness/kube_certificates.h"

namespace ods::testing {

class KubeControlPlane {
 public:
  struct Options {
    std::chrono::seconds ready_timeout{90};
    // Appended to kube-apiserver's command line, e.g. "--watch-cache=false" so that a watch from
    // a compacted resourceVersion really gets 410 Gone.
    std::vector<std::string> extra_apiserver_flags;
    // For a real node (harness/kube_node.h): the node's address (not loopback: the kubelet refuses
    // it, and pods must reach the server). When set, kube-apiserver binds and advertises it (the
    // `kubernetes` Service's endpoint, so pods reach it at 10.0.0.1:443), its certificate also
    // names it and the Service, the ServiceAccount admission plugin is on (the node's
    // controller-manager issues the tokens) and it reaches kubelets with the admin certificate
    // (kubectl logs). Empty: the envtest layout above, on 127.0.0.1.
    std::string node_ip;
  };

  // On failure returns a message naming the failed step with the server's log tail; everything
  // started so far is stopped.
  [[nodiscard]] static std::expected<std::unique_ptr<KubeControlPlane>, std::string> start(Options options);
  [[nodiscard]] static std::expected<std::unique_ptr<KubeControlPlane>, std::string> start() {
    return start(Options{});
  }
  ~KubeControlPlane();
  KubeControlPlane(const KubeControlPlane&) = delete;
  KubeControlPlane& operator=(const KubeControlPlane&) = delete;

  // https://127.0.0.1:<port> (https://<node_ip>:<port> for a node).
  std::string server_url() const;
  // A kubeconfig for the admin client certificate (group system:masters).
  const std::filesystem::path& kubeconfig() const { return kubeconfig_; }
  const KubeCertificates& certificates() const { return certificates_; }
  const std::filesystem::path& dir() const { return dir_; }
  // http://127.0.0.1:<port> of etcd (its v3 HTTP gateway: POST /v3/kv/compaction and so on).
  std::string etcd_url() const;

  // `kubectl --kubeconfig <kubeconfig()> <args...>` with the kubectl built beside the servers
  // (same version), or $ODS_KUBECTL.
  ProcessResult kubectl(const std::vector<std::string>& args) const;
  ProcessResult kubectl_as(const std::filesystem::path& kubeconfig, const std::vector<std::string>& args) const;

  // A service-account identity for RBAC tests: creates the namespace (if missing) and the
  // ServiceAccount (if missing), asks the TokenRequest API for a token (1 h) and writes a
  // kubeconfig that authenticates with it. The account has no permissions until a test binds
  // some. Returns the kubeconfig's path, or the failed step's kubectl output.
  [[nodiscard]] std::expected<std::filesystem::path, std::string> service_account_kubeconfig(
      const std::string& namespace_name, const std::string& account);

  // Stops kube-apiserver and starts it again on the same port with the same etcd: every open
  // watch breaks, and the new server's watch cache starts at etcd's current revision, so a
  // client that resumes from an older resourceVersion gets 410 Gone and must relist.
  [[nodiscard]] std::expected<void, std::string> restart_apiserver();

  // Stops kube-apiserver then etcd. No-op when stopped.
  void stop();

 private:
  KubeControlPlane(Options options, std::filesystem::path dir);
  [[nodiscard]] std::expected<void, std::string> start_etcd();
  // On a free port, or on `fixed_port` (a restart keeps the URL every client has).
  [[nodiscard]] std::expected<void, std::string> start_apiserver(int fixed_port = 0);
  // Writes a kubeconfig for this server with the given `user:` entry (YAML lines, indented by 4).
  std::filesystem::path write_kubeconfig(const std::string& file, const std::string& user_lines) const;

  // 127.0.0.1, or the node's address.
  std::string host() const { return options_.node_ip.empty() ? "127.0.0.1" : options_.node_ip; }

  Options options_;
  std::filesystem::path dir_;
  std::filesystem::path bin_dir_;
  KubeCertificates certificates_;
  std::filesystem::path kubeconfig_;
  int etcd_port_ = 0;
  int apiserver_port_ = 0;
  BackgroundProcess etcd_;
  BackgroundProcess apiserver_;
};

// The directory holding etcd, kube-apiserver and kubectl: the last line of scripts/kube-binaries.sh's
// output (which builds them when missing), or its error.
[[nodiscard]] std::expected<std::filesystem::path, std::string> kube_binaries_dir();

// The helm binary built by `scripts/kube-binaries.sh helm` (cached like the servers); or why
// it could not be built.
[[nodiscard]] std::expected<std::filesystem::path, std::string> helm_binary();

}  // namespace ods::testing
