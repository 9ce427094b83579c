#pragma once
// Test harness: a real single-node Kubernetes cluster on top of a KubeControlPlane started with
// Options::node_ip — what a user's cluster runs, on this machine, as root:
//
//   containerd (Debian's, runc, the CNI bridge plugin)  in a temp dir: its own config, root, state
//                                                       and socket; the pause and probe images
//                                                       (scripts/node-images.sh) imported
//   kubelet                                             cgroupfs driver, node IP = the host's
//                                                       address (the kubelet refuses loopback),
//                                                       serving on that address (kubectl logs)
//   kube-scheduler, kube-controller-manager             no leader election, no secure port
//   kube-proxy                                          iptables mode, masquerading Service traffic
//   CoreDNS                                             a host process on <node ip>:53 answering
//                                                       cluster.local only (nothing is forwarded:
//                                                       no test resolves beyond the machine); the
//                                                       kubelet's clusterDNS
//
// The binaries come from scripts/kube-binaries.sh node (built from the Go module proxy, cached;
// $ODS_NODE_BIN_DIR overrides), the Debian packages from scripts/setup-tier2.sh. Every component
// runs as a BackgroundProcess (killed with the test process). Pods get 10.88.<n>.0/24 on a bridge
// odsbr<n>, n chosen so that no route of the host uses it.
//
// start() returns once the node is Ready and untainted, the `default` ServiceAccount exists,
// CoreDNS answers and kube-proxy has synced; a failure names the component and shows its last
// log lines. stop() (also the destructor) tears everything down even after a failed test: it
// deletes every pod through the API (the kubelet stops their sandboxes, which releases their CNI
// addresses and rules), stops the components, kills what is left in containerd and its shims,
// removes kube-proxy's and the kubelet's iptables chains (KUBE-*), the bridge, the CNI masquerade rules of this
// network, the mounts under its directory and the kubelet's pod cgroups, then the directory (kept
// with ODS_KEEP_TEST_DIRS). A crashed test process (SIGKILL) leaves the shims and mounts: the next
// start() of a node does not depend on them. Not thread-safe; one node per machine at a time
// (kube-proxy's rules and port 53 are host-wide): run its suites serially.
#include <chrono>
#include <expected>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "harness/background_process.h"
#include "harness/kube_control_plane.h"

namespace ods::testing {

class KubeNode {
 public:
  struct Options {
    std::chrono::seconds ready_timeout{240};
  };

  // `plane` must outlive the node and have been started with Options::node_ip = host_address().
  [[nodiscard]] static std::expected<std::unique_ptr<KubeNode>, std::string> start(KubeControlPlane& plane,
                                                                                   Options options);
  [[nodiscard]] static std::expected<std::unique_ptr<KubeNode>, std::string> start(KubeControlPlane& plane) {
    return start(plane, Options{});
  }
  ~KubeNode();
  KubeNode(const KubeNode&) = delete;
  KubeNode& operator=(const KubeNode&) = delete;

  // The node's name in the cluster and its address.
  const std::string& name() const { return name_; }
  const std::string& ip() const { return ip_; }
  // 10.88.<n>.0/24
  const std::string& pod_cidr() const { return pod_cidr_; }
  // The pods' bridge, odsbr<n>.
  const std::string& bridge() const { return bridge_; }
  // The images every node has (localhost/ods-node-pause:<key>, localhost/ods-node-probe:<key>).
  const std::string& pause_image() const { return pause_image_; }
  const std::string& probe_image() const { return probe_image_; }
  const std::filesystem::path& dir() const { return dir_; }

  // Imports an image archive (docker-archive or OCI archive, as `podman save` and
  // scripts/images.sh write them) into containerd's k8s.io namespace, so pods can run it with
  // imagePullPolicy Never (or IfNotPresent). Returns ctr's error output on failure.
  [[nodiscard]] std::expected<void, std::string> import_image(const std::filesystem::path& archive);

  // Tags an imported image with another name (`ctr images tag`), e.g. a new release's tag for a
  // rollout; ctr's error output on failure.
  [[nodiscard]] std::expected<void, std::string> tag_image(const std::string& image, const std::string& new_name);

  // Stops the kubelet (SIGTERM; its pods' containers keep running under containerd) and starts
  // it again with the same configuration, as a node's kubelet upgraded or crashed and restarted
  // by its supervisor. Returns once the new kubelet runs (not once the node is Ready again).
  [[nodiscard]] std::expected<void, std::string> restart_kubelet();

  // What each component printed last (for a failing test's message).
  std::string logs_tail(std::size_t lines = 15) const;

  // Tears everything down (see above); idempotent. Returns what could not be cleaned up (empty
  // when everything was).
  std::vector<std::string> stop();

 private:
  KubeNode(KubeControlPlane& plane, Options options, std::filesystem::path dir);
  [[nodiscard]] std::expected<void, std::string> start_containerd();
  [[nodiscard]] std::expected<void, std::string> start_kubelet();
  [[nodiscard]] std::expected<void, std::string> start_controllers();
  [[nodiscard]] std::expected<void, std::string> start_kube_proxy();
  [[nodiscard]] std::expected<void, std::string> start_coredns();
  [[nodiscard]] std::expected<void, std::string> wait_until_ready();
  // `ctr --address <socket> -n k8s.io <args...>`
  ProcessResult ctr(const std::vector<std::string>& args) const;
  void remove_network(std::vector<std::string>& left);

  KubeControlPlane& plane_;
  Options options_;
  std::filesystem::path dir_;
  std::filesystem::path bin_dir_;
  std::filesystem::path images_dir_;
  std::string name_;
  std::string ip_;
  int subnet_ = 0;
  std::string pod_cidr_;
  std::string bridge_;
  std::string network_;
  std::string pause_image_;
  std::string probe_image_;
  int kube_proxy_healthz_port_ = 0;
  int coredns_ready_port_ = 0;
  bool stopped_ = false;
  BackgroundProcess containerd_;
  BackgroundProcess kubelet_;
  BackgroundProcess scheduler_;
  BackgroundProcess controller_manager_;
  BackgroundProcess kube_proxy_;
  BackgroundProcess coredns_;
};

// The host's address a node uses: the source address of its default route (e.g. eth0's), or why
// there is none.
[[nodiscard]] std::expected<std::string, std::string> host_address();

}  // namespace ods::testing
