#include "harness/kube_node.h"

#include <signal.h>
#include <sys/mount.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "harness/dbt_project.h"  // run_process
#include "harness/loopback_port.h"
#include "harness/temp_dir.h"

namespace ods::testing {

namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kSystemPath = {"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"};

std::string last_line(const std::string& text) {
  std::istringstream in(text);
  std::string last;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) last = line;
  return last;
}

void write_file(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::trunc) << text;
}

// The directory scripts/<script> prints as its last line (it builds what is missing).
std::expected<fs::path, std::string> script_dir(const std::vector<std::string>& argv,
                                                const std::vector<std::string>& expected_files) {
  ProcessResult r = run_process(argv, source_dir());
  if (r.exit_code != 0)
    return std::unexpected(argv.at(0) + " failed (exit code " + std::to_string(r.exit_code) + "):\n" + r.errors);
  fs::path dir = last_line(r.output);
  std::error_code ec;
  for (const auto& file : expected_files)
    if (!fs::exists(dir / file, ec))
      return std::unexpected(argv.at(0) + " printed " + dir.string() + ", which has no " + file);
  return dir;
}

// Every `ip -4 route` line, to choose a subnet no route uses.
std::string host_routes() { return run_process({"ip", "-4", "route", "show", "table", "all"}, "/").output; }

// Polls `ready` every 500 ms until it holds, `process` ends or `timeout` passes.
template <typename Ready>
std::expected<void, std::string> wait_for(BackgroundProcess& process, const std::string& what,
                                          std::chrono::seconds timeout, Ready ready) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string last = "(not asked yet)";
  while (std::chrono::steady_clock::now() < deadline) {
    if (ready(last)) return {};
    if (process.exited())
      return std::unexpected(what + ": the process " + process.exit_description() + "; its log ends:\n" +
                             process.log_tail(25));
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  return std::unexpected(what + ": not ready after " + std::to_string(timeout.count()) + " s (last answer: " + last +
                         "); its log ends:\n" + process.log_tail(25));
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Processes whose command line mentions `needle` (the shims of this node's containerd name its
// socket).
std::vector<pid_t> processes_mentioning(const std::string& needle) {
  std::vector<pid_t> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    std::string cmdline = read_file(entry.path() / "cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    if (cmdline.find(needle) != std::string::npos) found.push_back(std::stoi(name));
  }
  return found;
}

// Mount points at or below `dir`, deepest first.
std::vector<std::string> mounts_under(const fs::path& dir) {
  std::vector<std::string> found;
  std::istringstream in(read_file("/proc/self/mountinfo"));
  const std::string prefix = dir.string() + "/";
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string id, parent, device, root, point;
    fields >> id >> parent >> device >> root >> point;
    if (point.starts_with(prefix)) found.push_back(point);
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
  return found;
}

// Removes the kubelet's pod cgroups (kubepods, bottom-up; only empty ones can go) in every
// cgroup v1 hierarchy and the unified one.
void remove_pod_cgroups(std::vector<std::string>& left) {
  std::error_code ec;
  for (const auto& hierarchy : fs::directory_iterator("/sys/fs/cgroup", ec)) {
    const fs::path pods = hierarchy.path() / "kubepods";
    if (!fs::is_directory(pods, ec)) continue;
    std::vector<fs::path> dirs;
    for (auto it = fs::recursive_directory_iterator(pods, ec); it != fs::recursive_directory_iterator(); ++it)
      if (it->is_directory(ec)) dirs.push_back(it->path());
    std::sort(dirs.begin(), dirs.end(),
              [](const auto& a, const auto& b) { return a.string().size() > b.string().size(); });
    dirs.push_back(pods);
    for (const auto& d : dirs)
      if (::rmdir(d.c_str()) != 0 && errno != ENOENT) {
        left.push_back("cgroup " + d.string() + " (" + std::strerror(errno) + ")");
        break;
      }
  }
}

// Removes every KUBE-* chain and every rule that jumps to one, in the filter, nat and mangle
// tables, IPv4 and IPv6: kube-proxy's (what `kube-proxy --cleanup` leaves) and the kubelet's own
// (KUBE-FIREWALL, KUBE-KUBELET-CANARY, KUBE-IPTABLES-HINT).
void remove_kubernetes_rules(std::vector<std::string>& left) {
  for (const char* tool : {"iptables", "ip6tables"}) {
    for (const char* table : {"filter", "nat", "mangle"}) {
      const std::string rules = run_process({tool, "-t", table, "-S"}, "/", kSystemPath).output;
      std::vector<std::string> chains;
      std::istringstream lines(rules);
      for (std::string line; std::getline(lines, line);) {
        if (line.starts_with("-N KUBE-")) chains.push_back(line.substr(3));
        if (!line.starts_with("-A ") || line.find(" -j KUBE-") == std::string::npos) continue;
        const std::string chain = line.substr(3, line.find(' ', 3) - 3);
        if (chain.starts_with("KUBE-")) continue;  // flushed with its chain below
        ProcessResult r = run_process({"/bin/sh", "-c", std::string(tool) + " -t " + table + " -D " + line.substr(3)},
                                      "/", kSystemPath);
        if (r.exit_code != 0) left.push_back(std::string(tool) + " -t " + table + " rule " + line + ": " + r.errors);
      }
      for (const auto& chain : chains) (void)run_process({tool, "-t", table, "-F", chain}, "/", kSystemPath);
      for (const auto& chain : chains) {
        ProcessResult r = run_process({tool, "-t", table, "-X", chain}, "/", kSystemPath);
        if (r.exit_code != 0) left.push_back(std::string(tool) + " -t " + table + " chain " + chain + ": " + r.errors);
      }
    }
  }
}

}  // namespace

std::expected<std::string, std::string> host_address() {
  // `ip route get` only looks the route up; nothing is sent.
  ProcessResult r = run_process({"ip", "-4", "-o", "route", "get", "192.0.2.254"}, "/");
  std::istringstream words(r.output);
  for (std::string word; words >> word;) {
    if (word != "src") continue;
    std::string address;
    words >> address;
    if (!address.empty() && !address.starts_with("127.")) return address;
  }
  r = run_process({"ip", "-4", "-o", "addr", "show", "scope", "global"}, "/");
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);) {
    const auto at = line.find(" inet ");
    if (at == std::string::npos) continue;
    std::string address = line.substr(at + 6);
    address = address.substr(0, address.find('/'));
    if (!address.empty()) return address;
  }
  return std::unexpected("no non-loopback IPv4 address on this host (ip -4 addr show scope global printed: " +
                         r.output + r.errors + "); a kubelet refuses a loopback node IP");
}

KubeNode::KubeNode(KubeControlPlane& plane, Options options, fs::path dir)
    : plane_(plane), options_(options), dir_(std::move(dir)) {}

KubeNode::~KubeNode() {
  stop();
  if (dir_.empty() || std::getenv("ODS_KEEP_TEST_DIRS")) return;
  if (!mounts_under(dir_).empty()) return;  // never remove_all through a mount
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

std::expected<std::unique_ptr<KubeNode>, std::string> KubeNode::start(KubeControlPlane& plane, Options options) {
  if (::geteuid() != 0)
    return std::unexpected("KubeNode: a real node needs root (containerd, mounts, iptables); this test runs as uid " +
                           std::to_string(::geteuid()));
  auto bin_dir = script_dir({(source_dir() / "scripts" / "kube-binaries.sh").string(), "node"},
                            {"kubelet", "kube-scheduler", "kube-controller-manager", "kube-proxy", "coredns"});
  if (!bin_dir) return std::unexpected("KubeNode: " + bin_dir.error());
  auto images_dir =
      script_dir({(source_dir() / "scripts" / "node-images.sh").string()}, {"pause.tar", "probe.tar", "images.txt"});
  if (!images_dir) return std::unexpected("KubeNode: " + images_dir.error());
  auto address = host_address();
  if (!address) return std::unexpected("KubeNode: " + address.error());
  if (plane.server_url().find("//" + *address + ":") == std::string::npos)
    return std::unexpected("KubeNode: the control plane serves " + plane.server_url() + ", not the node's address " +
                           *address + " (start it with Options::node_ip)");

  // A short directory: containerd's socket path must stay under the 108 bytes of a unix socket.
  std::unique_ptr<KubeNode> node(new KubeNode(plane, options, fresh_test_dir("node")));
  node->bin_dir_ = *bin_dir;
  node->images_dir_ = *images_dir;
  node->ip_ = *address;
  node->name_ = "ods-test-node";
  const std::string routes = host_routes();
  std::random_device random;
  for (int attempt = 0; attempt < 64 && node->subnet_ == 0; ++attempt) {
    const int n = static_cast<int>(random() % 250) + 1;
    if (routes.find("10.88." + std::to_string(n) + ".") == std::string::npos) node->subnet_ = n;
  }
  if (node->subnet_ == 0)
    return std::unexpected("KubeNode: no free 10.88.<n>.0/24 for pods (ip route:\n" + routes + ")");
  node->pod_cidr_ = "10.88." + std::to_string(node->subnet_) + ".0/24";
  node->bridge_ = "odsbr" + std::to_string(node->subnet_);
  node->network_ = "ods-node-" + std::to_string(node->subnet_);
  std::istringstream images(read_file(node->images_dir_ / "images.txt"));
  for (std::string program, image; images >> program >> image;)
    (program == "pause" ? node->pause_image_ : node->probe_image_) = image;

  for (auto step : {&KubeNode::start_containerd, &KubeNode::start_kubelet, &KubeNode::start_controllers,
                    &KubeNode::start_kube_proxy, &KubeNode::start_coredns, &KubeNode::wait_until_ready}) {
    if (auto r = ((*node).*step)(); !r) {
      std::string message = "KubeNode: " + r.error();
      const auto left = node->stop();
      for (const auto& l : left) message += "\n(teardown left " + l + ")";
      return std::unexpected(message);
    }
  }
  return node;
}

ProcessResult KubeNode::ctr(const std::vector<std::string>& args) const {
  std::vector<std::string> argv = {"/usr/bin/ctr", "--address", (dir_ / "containerd" / "containerd.sock").string(),
                                   "--namespace", "k8s.io"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, dir_, kSystemPath);
}

std::expected<void, std::string> KubeNode::start_containerd() {
  const fs::path base = dir_ / "containerd";
  write_file(
      dir_ / "cni" / "conf" / "10-ods.conflist", R"({"cniVersion": "1.0.0", "name": ")" + network_ + R"(", "plugins": [
  {"type": "bridge", "bridge": ")" + bridge_ +
                                                     R"(", "isGateway": true, "ipMasq": true, "hairpinMode": true,
   "ipam": {"type": "host-local", "dataDir": ")" + (dir_ / "cni" / "ipam").string() +
                                                     R"(", "ranges": [[{"subnet": ")" + pod_cidr_ + R"("}]],
            "routes": [{"dst": "0.0.0.0/0"}]}},
  {"type": "portmap", "capabilities": {"portMappings": true}},
  {"type": "loopback"}]}
)");
  // restrict_oom_score_adj: this process lacks CAP_SYS_RESOURCE, so runc may not lower a
  // container's oom_score_adj below ours; without it every sandbox fails ("can't get final
  // child's PID from pipe: EOF").
  write_file(base / "config.toml",
             "version = 2\nroot = \"" + (base / "root").string() + "\"\nstate = \"" + (base / "state").string() +
                 "\"\ndisabled_plugins = [\"io.containerd.snapshotter.v1.aufs\", "
                 "\"io.containerd.snapshotter.v1.btrfs\", \"io.containerd.snapshotter.v1.zfs\", "
                 "\"io.containerd.snapshotter.v1.devmapper\"]\n"
                 "[grpc]\n  address = \"" +
                 (base / "containerd.sock").string() + "\"\n[ttrpc]\n  address = \"" +
                 (base / "containerd.sock.ttrpc").string() +
                 "\"\n[plugins.\"io.containerd.grpc.v1.cri\"]\n  sandbox_image = \"" + pause_image_ +
                 "\"\n  restrict_oom_score_adj = true\n"
                 "  [plugins.\"io.containerd.grpc.v1.cri\".containerd]\n"
                 "    snapshotter = \"overlayfs\"\n    default_runtime_name = \"runc\"\n"
                 "    [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]\n"
                 "      runtime_type = \"io.containerd.runc.v2\"\n"
                 "  [plugins.\"io.containerd.grpc.v1.cri\".cni]\n"
                 "    bin_dir = \"/usr/lib/cni\"\n    conf_dir = \"" +
                 (dir_ / "cni" / "conf").string() + "\"\n");
  if (auto r = containerd_.start({"/usr/bin/containerd", "--config", (base / "config.toml").string()}, dir_,
                                 dir_ / "containerd.log", kSystemPath);
      !r)
    return std::unexpected("containerd: " + r.error());
  auto ready = wait_for(containerd_, "containerd", options_.ready_timeout, [&](std::string& last) {
    ProcessResult r = ctr({"version"});
    last = r.errors;
    return r.exit_code == 0;
  });
  if (!ready) return ready;
  for (const char* archive : {"pause.tar", "probe.tar"})
    if (auto r = import_image(images_dir_ / archive); !r) return std::unexpected("containerd: " + r.error());
  return {};
}

std::expected<void, std::string> KubeNode::import_image(const fs::path& archive) {
  ProcessResult r = ctr({"images", "import", archive.string()});
  if (r.exit_code != 0) return std::unexpected("ctr images import " + archive.string() + ": " + r.errors + r.output);
  return {};
}

std::expected<void, std::string> KubeNode::tag_image(const std::string& image, const std::string& new_name) {
  ProcessResult r = ctr({"images", "tag", "--force", image, new_name});
  if (r.exit_code != 0) return std::unexpected("ctr images tag " + image + " " + new_name + ": " + r.errors + r.output);
  return {};
}

std::expected<void, std::string> KubeNode::restart_kubelet() {
  kubelet_.stop();
  return start_kubelet();
}

std::expected<void, std::string> KubeNode::start_kubelet() {
  const KubeCertificates& pki = plane_.certificates();
  auto port = free_loopback_port();
  if (!port) return std::unexpected("kubelet: " + port.error());
  const fs::path config = dir_ / "kubelet.yaml";
  write_file(config,
             "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
             "cgroupDriver: cgroupfs\nfailSwapOn: false\nfailCgroupV1: false\n"
             "containerRuntimeEndpoint: unix://" +
                 (dir_ / "containerd" / "containerd.sock").string() +
                 "\n"
                 "address: " +
                 ip_ + "\nport: " + std::to_string(*port) +
                 "\nreadOnlyPort: 0\nhealthzPort: 0\n"
                 "authentication: {anonymous: {enabled: false}, webhook: {enabled: false}, x509: {clientCAFile: " +
                 pki.ca_cert().string() +
                 "}}\n"
                 "authorization: {mode: AlwaysAllow}\n"
                 "clusterDNS: [" +
                 ip_ +
                 "]\nclusterDomain: cluster.local\n"
                 "podLogsDir: " +
                 (dir_ / "pod-logs").string() +
                 "\n"
                 // This machine's disk is shared and fuller than a real node's: evict late.
                 "evictionHard: {memory.available: 100Mi, nodefs.available: 1%, imagefs.available: 1%}\n"
                 "imageGCHighThresholdPercent: 100\n"
                 "cgroupsPerQOS: true\nenforceNodeAllocatable: []\nlocalStorageCapacityIsolation: false\n"
                 "serializeImagePulls: false\n");
  if (auto r =
          kubelet_.start({(bin_dir_ / "kubelet").string(), "--config=" + config.string(),
                          "--kubeconfig=" + plane_.kubeconfig().string(), "--root-dir=" + (dir_ / "kubelet").string(),
                          "--cert-dir=" + (dir_ / "kubelet-pki").string(), "--hostname-override=" + name_,
                          "--node-ip=" + ip_, "--v=1"},
                         dir_, dir_ / "kubelet.log", kSystemPath);
      !r)
    return std::unexpected("kubelet: " + r.error());
  return {};
}

std::expected<void, std::string> KubeNode::start_controllers() {
  const KubeCertificates& pki = plane_.certificates();
  const std::string kubeconfig = "--kubeconfig=" + plane_.kubeconfig().string();
  if (auto r = scheduler_.start(
          {(bin_dir_ / "kube-scheduler").string(), kubeconfig, "--leader-elect=false", "--secure-port=0"}, dir_,
          dir_ / "kube-scheduler.log", kSystemPath);
      !r)
    return std::unexpected("kube-scheduler: " + r.error());
  // nodeipam off: the bridge plugin assigns pod addresses from the node's own range.
  if (auto r = controller_manager_.start(
          {(bin_dir_ / "kube-controller-manager").string(), kubeconfig, "--leader-elect=false", "--secure-port=0",
           "--controllers=*,-nodeipam", "--service-account-private-key-file=" + pki.service_account_key().string(),
           "--root-ca-file=" + pki.ca_cert().string(), "--cluster-name=ods-test"},
          dir_, dir_ / "kube-controller-manager.log", kSystemPath);
      !r)
    return std::unexpected("kube-controller-manager: " + r.error());
  return {};
}

std::expected<void, std::string> KubeNode::start_kube_proxy() {
  auto healthz = free_loopback_port();
  auto metrics = free_loopback_port();
  if (!healthz || !metrics) return std::unexpected("kube-proxy: " + (healthz ? metrics.error() : healthz.error()));
  kube_proxy_healthz_port_ = *healthz;
  // --masquerade-all: a pod reaching a Service whose backend is on the same bridge gets its
  // answer back through the host (un-NATed), whatever br_netfilter does. The conntrack settings
  // are left as they are (0: don't touch the host's sysctls).
  if (auto r = kube_proxy_.start(
          {(bin_dir_ / "kube-proxy").string(), "--kubeconfig=" + plane_.kubeconfig().string(),
           "--hostname-override=" + name_, "--proxy-mode=iptables", "--cluster-cidr=" + pod_cidr_,
           "--masquerade-all=true", "--conntrack-max-per-core=0", "--conntrack-tcp-timeout-established=0",
           "--conntrack-tcp-timeout-close-wait=0", "--nodeport-addresses=" + ip_ + "/32",
           "--healthz-bind-address=127.0.0.1:" + std::to_string(*healthz),
           "--metrics-bind-address=127.0.0.1:" + std::to_string(*metrics)},
          dir_, dir_ / "kube-proxy.log", kSystemPath);
      !r)
    return std::unexpected("kube-proxy: " + r.error());
  return {};
}

std::expected<void, std::string> KubeNode::start_coredns() {
  auto ready = free_loopback_port();
  if (!ready) return std::unexpected("coredns: " + ready.error());
  coredns_ready_port_ = *ready;
  const fs::path corefile = dir_ / "Corefile";
  write_file(corefile, ".:53 {\n  bind " + ip_ + "\n  errors\n  ready 127.0.0.1:" + std::to_string(*ready) +
                           "\n  kubernetes cluster.local in-addr.arpa ip6.arpa {\n    kubeconfig " +
                           plane_.kubeconfig().string() + "\n    pods insecure\n  }\n  cache 5\n}\n");
  if (auto r = coredns_.start({(bin_dir_ / "coredns").string(), "-conf", corefile.string()}, dir_, dir_ / "coredns.log",
                              kSystemPath);
      !r)
    return std::unexpected("coredns: " + r.error());
  return {};
}

std::expected<void, std::string> KubeNode::wait_until_ready() {
  const auto timeout = options_.ready_timeout;
  if (auto r = wait_for(
          kubelet_, "kubelet (node " + name_ + " Ready)", timeout,
          [&](std::string& last) {
            ProcessResult p =
                plane_.kubectl({"get", "node", name_, "-o",
                                "jsonpath={.status.conditions[?(@.type==\"Ready\")].status} {.spec.taints}"});
            last = p.output + p.errors;
            return p.exit_code == 0 && p.output.starts_with("True") && p.output.find("not-ready") == std::string::npos;
          });
      !r)
    return r;
  if (auto r = wait_for(controller_manager_, "kube-controller-manager (ServiceAccount default/default)", timeout,
                        [&](std::string& last) {
                          ProcessResult p = plane_.kubectl({"get", "serviceaccount", "default", "-n", "default"});
                          last = p.errors;
                          return p.exit_code == 0;
                        });
      !r)
    return r;
  if (auto r = wait_for(kube_proxy_, "kube-proxy (healthz)", timeout,
                        [&](std::string& last) {
                          auto answer = loopback_http_get(kube_proxy_healthz_port_, "/healthz");
                          last = answer ? answer->substr(0, answer->find('\n')) : answer.error();
                          return answer && answer->find(" 200 ") != std::string::npos;
                        });
      !r)
    return r;
  if (auto r = wait_for(coredns_, "coredns (ready)", timeout,
                        [&](std::string& last) {
                          auto answer = loopback_http_get(coredns_ready_port_, "/ready");
                          last = answer ? answer->substr(0, answer->find('\n')) : answer.error();
                          return answer && answer->find(" 200 ") != std::string::npos;
                        });
      !r)
    return r;
  if (scheduler_.exited())
    return std::unexpected("kube-scheduler " + scheduler_.exit_description() + "; its log ends:\n" +
                           scheduler_.log_tail(25));
  return {};
}

std::string KubeNode::logs_tail(std::size_t lines) const {
  std::string text;
  for (const auto* process : {&containerd_, &kubelet_, &scheduler_, &controller_manager_, &kube_proxy_, &coredns_})
    if (!process->log().empty()) text += "--- " + process->log().filename().string() + "\n" + process->log_tail(lines);
  return text;
}

std::vector<std::string> KubeNode::stop() {
  std::vector<std::string> left;
  if (stopped_) return left;
  stopped_ = true;
  // 1. No new pods, then every pod deleted through the kubelet: it stops their sandboxes, which
  //    releases their addresses, veths and CNI rules.
  controller_manager_.stop();
  scheduler_.stop();
  if (!kubelet_.exited()) {
    ProcessResult r = plane_.kubectl(
        {"delete", "pods", "--all", "--all-namespaces", "--grace-period=1", "--wait=true", "--timeout=90s"});
    if (r.exit_code != 0) left.push_back("pods not deleted through the API: " + r.errors);
  }
  kubelet_.stop();
  coredns_.stop();
  kube_proxy_.stop();
  // 2. kube-proxy's chains (the kubelet's go with the network, below).
  if (!bin_dir_.empty()) {
    ProcessResult r = run_process({(bin_dir_ / "kube-proxy").string(), "--cleanup"}, dir_, kSystemPath);
    if (r.exit_code != 0) left.push_back("kube-proxy --cleanup: " + r.errors);
  }
  // 3. What is left in containerd (pods the API could not delete), then containerd and its shims.
  if (!containerd_.exited()) {
    ProcessResult tasks = ctr({"tasks", "list", "--quiet"});
    std::istringstream ids(tasks.output);
    for (std::string id; ids >> id;) {
      (void)ctr({"tasks", "kill", "--signal", "SIGKILL", id});
      (void)ctr({"tasks", "delete", "--force", id});
    }
  }
  containerd_.stop();
  const std::string socket = (dir_ / "containerd" / "containerd.sock").string();
  for (pid_t pid : processes_mentioning(socket)) ::kill(pid, SIGKILL);
  // 4. Mounts (rootfs overlays, shm, secrets, netns bind mounts) under the directory.
  for (const auto& point : mounts_under(dir_))
    if (::umount2(point.c_str(), MNT_DETACH) != 0 && errno != EINVAL && errno != ENOENT)
      left.push_back("mount " + point + " (" + std::strerror(errno) + ")");
  // 5. The bridge and this network's masquerade rules, the Kubernetes chains, the pod cgroups.
  remove_network(left);
  remove_kubernetes_rules(left);
  remove_pod_cgroups(left);
  return left;
}

void KubeNode::remove_network(std::vector<std::string>& left) {
  if (bridge_.empty()) return;
  if (run_process({"ip", "link", "show", bridge_}, "/", kSystemPath).exit_code == 0) {
    ProcessResult r = run_process({"ip", "link", "delete", bridge_}, "/", kSystemPath);
    if (r.exit_code != 0) left.push_back("bridge " + bridge_ + ": " + r.errors);
  }
  // The bridge plugin's ipMasq rules: `-A POSTROUTING -s <pod ip> -m comment --comment "name:
  // \"<network>\" id: ..." -j CNI-<hash>`, each with its own chain. Normally gone with their pods.
  ProcessResult rules = run_process({"iptables", "-t", "nat", "-S", "POSTROUTING"}, "/", kSystemPath);
  std::istringstream lines(rules.output);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("\\\"" + network_ + "\\\"") == std::string::npos || !line.starts_with("-A POSTROUTING ")) continue;
    const auto jump = line.rfind(" -j ");
    const std::string chain = jump == std::string::npos ? "" : line.substr(jump + 4);
    // Delete by rule number is racy; by specification needs the words: let the shell split them.
    ProcessResult r = run_process({"/bin/sh", "-c", "iptables -t nat -D " + line.substr(3)}, "/", kSystemPath);
    if (r.exit_code != 0) left.push_back("iptables rule " + line + ": " + r.errors);
    if (chain.starts_with("CNI-")) {
      (void)run_process({"iptables", "-t", "nat", "-F", chain}, "/", kSystemPath);
      (void)run_process({"iptables", "-t", "nat", "-X", chain}, "/", kSystemPath);
    }
  }
}

}  // namespace ods::testing
