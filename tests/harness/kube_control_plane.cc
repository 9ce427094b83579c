#include "harness/kube_control_plane.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "harness/loopback_port.h"
#include "harness/temp_dir.h"

namespace ods::testing {

namespace fs = std::filesystem;

namespace {

constexpr int kPortAttempts = 5;

std::string last_line(const std::string& text) {
  std::istringstream in(text);
  std::string last;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) last = line;
  return last;
}

bool lost_port_race(const BackgroundProcess& process) {
  return process.log_tail(200).find("address already in use") != std::string::npos;
}

// Polls `ready` every 200 ms until it is true, the process ends or the timeout passes.
// `what` names the server in messages; `last_answer` is updated by `ready` for them.
template <typename Ready>
std::expected<void, std::string> wait_until(BackgroundProcess& process, const std::string& what,
                                            std::chrono::seconds timeout, std::string& last_answer, Ready ready) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (ready()) return {};
    if (process.exited())
      return std::unexpected(what + " " + process.exit_description() + " before it was ready; log tail:\n" +
                             process.log_tail());
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return std::unexpected(what + " not ready after " + std::to_string(timeout.count()) +
                         " s; last answer: " + last_answer + "\nlog tail:\n" + process.log_tail());
}

}  // namespace

std::expected<fs::path, std::string> kube_binaries_dir() {
  const fs::path script = source_dir() / "scripts" / "kube-binaries.sh";
  ProcessResult r = run_process({script.string()}, source_dir());
  if (r.exit_code != 0)
    return std::unexpected(script.string() + " failed (exit code " + std::to_string(r.exit_code) + "):\n" + r.errors);
  fs::path dir = last_line(r.output);
  std::error_code ec;
  for (const char* binary : {"etcd", "kube-apiserver", "kubectl"})
    if (!fs::exists(dir / binary, ec))
      return std::unexpected(script.string() + " printed " + dir.string() + ", which has no " + binary);
  return dir;
}

std::expected<fs::path, std::string> helm_binary() {
  const fs::path script = source_dir() / "scripts" / "kube-binaries.sh";
  ProcessResult r = run_process({script.string(), "helm"}, source_dir());
  if (r.exit_code != 0)
    return std::unexpected(script.string() + " helm failed (exit code " + std::to_string(r.exit_code) + "):\n" +
                           r.errors);
  const fs::path helm = fs::path(last_line(r.output)) / "helm";
  std::error_code ec;
  if (!fs::exists(helm, ec)) return std::unexpected(script.string() + " helm printed a directory without helm");
  return helm;
}

KubeControlPlane::KubeControlPlane(Options options, fs::path dir) : options_(options), dir_(std::move(dir)) {}

std::expected<std::unique_ptr<KubeControlPlane>, std::string> KubeControlPlane::start(Options options) {
  auto bin_dir = kube_binaries_dir();
  if (!bin_dir) return std::unexpected("KubeControlPlane: " + bin_dir.error());
  std::unique_ptr<KubeControlPlane> plane(new KubeControlPlane(options, ods::testing::fresh_test_dir("kube")));
  plane->bin_dir_ = *bin_dir;
  fs::create_directories(plane->dir_ / "pki");
  std::vector<std::string> extra_names;
  if (!options.node_ip.empty())
    extra_names = {"IP:" + options.node_ip,
                   "IP:10.0.0.1",
                   "DNS:kubernetes",
                   "DNS:kubernetes.default",
                   "DNS:kubernetes.default.svc",
                   "DNS:kubernetes.default.svc.cluster.local"};
  auto certificates = make_kube_certificates(plane->dir_ / "pki", extra_names);
  if (!certificates) return std::unexpected("KubeControlPlane: " + certificates.error());
  plane->certificates_ = *certificates;
  if (auto r = plane->start_etcd(); !r) return std::unexpected("KubeControlPlane: " + r.error());
  if (auto r = plane->start_apiserver(); !r) return std::unexpected("KubeControlPlane: " + r.error());
  return plane;
}

KubeControlPlane::~KubeControlPlane() {
  stop();
  if (dir_.empty() || std::getenv("ODS_KEEP_TEST_DIRS")) return;
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

void KubeControlPlane::stop() {
  apiserver_.stop();
  etcd_.stop();
}

std::expected<void, std::string> KubeControlPlane::start_etcd() {
  std::string error;
  for (int attempt = 0; attempt < kPortAttempts; ++attempt) {
    auto client_port = free_loopback_port();
    auto peer_port = free_loopback_port();
    if (!client_port || !peer_port) return std::unexpected(client_port ? peer_port.error() : client_port.error());
    etcd_port_ = *client_port;
    const std::string client_url = "http://127.0.0.1:" + std::to_string(etcd_port_);
    const std::string peer_url = "http://127.0.0.1:" + std::to_string(*peer_port);
    fs::remove_all(dir_ / "etcd-data");
    auto started = etcd_.start({(bin_dir_ / "etcd").string(), "--data-dir=" + (dir_ / "etcd-data").string(),
                                "--listen-client-urls=" + client_url, "--advertise-client-urls=" + client_url,
                                "--listen-peer-urls=" + peer_url, "--initial-advertise-peer-urls=" + peer_url,
                                "--initial-cluster=default=" + peer_url, "--unsafe-no-fsync=true", "--log-level=warn"},
                               dir_, dir_ / "etcd.log");
    if (!started) return std::unexpected(started.error());
    std::string answer = "(none)";
    auto ready = wait_until(etcd_, "etcd on " + client_url, options_.ready_timeout, answer, [&] {
      auto response = loopback_http_get(etcd_port_, "/health");
      answer = response ? *response : response.error();
      return response && response->find("\"health\":\"true\"") != std::string::npos;
    });
    if (ready) return {};
    error = ready.error();
    if (!lost_port_race(etcd_)) return std::unexpected(error);
    etcd_.stop();
  }
  return std::unexpected("no free ports for etcd after " + std::to_string(kPortAttempts) + " attempts: " + error);
}

std::expected<void, std::string> KubeControlPlane::restart_apiserver() {
  apiserver_.stop();
  return start_apiserver(apiserver_port_);
}

std::expected<void, std::string> KubeControlPlane::start_apiserver(int fixed_port) {
  const KubeCertificates& pki = certificates_;
  std::string error;
  for (int attempt = 0; attempt < kPortAttempts; ++attempt) {
    if (fixed_port > 0) {
      apiserver_port_ = fixed_port;
    } else {
      auto port = free_loopback_port();
      if (!port) return std::unexpected(port.error());
      apiserver_port_ = *port;
    }
    std::vector<std::string> argv = {(bin_dir_ / "kube-apiserver").string(),
                                     "--etcd-servers=http://127.0.0.1:" + std::to_string(etcd_port_),
                                     "--secure-port=" + std::to_string(apiserver_port_),
                                     "--bind-address=" + host(),
                                     "--advertise-address=" + host(),
                                     "--cert-dir=" + (dir_ / "apiserver-certs").string(),
                                     "--tls-cert-file=" + pki.serving_cert().string(),
                                     "--tls-private-key-file=" + pki.serving_key().string(),
                                     "--client-ca-file=" + pki.ca_cert().string(),
                                     "--authorization-mode=RBAC",
                                     "--service-account-issuer=" + server_url() + "/",
                                     "--service-account-key-file=" + pki.service_account_public_key().string(),
                                     "--service-account-signing-key-file=" + pki.service_account_key().string(),
                                     "--service-cluster-ip-range=10.0.0.0/24",
                                     "--allow-privileged=true"};
    if (options_.node_ip.empty()) {
      // No controllers: no endpoints for the `kubernetes` Service, no service-account tokens.
      argv.push_back("--endpoint-reconciler-type=none");
      argv.push_back("--disable-admission-plugins=ServiceAccount");
    } else {
      argv.push_back("--kubelet-client-certificate=" + pki.admin_cert().string());
      argv.push_back("--kubelet-client-key=" + pki.admin_key().string());
      argv.push_back("--kubelet-preferred-address-types=InternalIP");  // the node's name is in no DNS
    }
    argv.insert(argv.end(), options_.extra_apiserver_flags.begin(), options_.extra_apiserver_flags.end());
    auto started = apiserver_.start(argv, dir_, dir_ / "kube-apiserver.log");
    if (!started) return std::unexpected(started.error());
    kubeconfig_ = write_kubeconfig("admin.kubeconfig", "    client-certificate: " + pki.admin_cert().string() +
                                                           "\n    client-key: " + pki.admin_key().string() + "\n");
    std::string answer = "(none)";
    auto ready = wait_until(apiserver_, "kube-apiserver on " + server_url(), options_.ready_timeout, answer, [&] {
      ProcessResult r = kubectl({"get", "--raw=/readyz", "--request-timeout=2s"});
      answer = r.output + r.errors;
      return r.exit_code == 0 && r.output.starts_with("ok");
    });
    if (ready) return {};
    error = ready.error();
    if (fixed_port > 0 || !lost_port_race(apiserver_)) return std::unexpected(error);
    apiserver_.stop();
  }
  return std::unexpected("no free port for kube-apiserver after " + std::to_string(kPortAttempts) +
                         " attempts: " + error);
}

std::string KubeControlPlane::etcd_url() const { return "http://127.0.0.1:" + std::to_string(etcd_port_); }

std::string KubeControlPlane::server_url() const { return "https://" + host() + ":" + std::to_string(apiserver_port_); }

fs::path KubeControlPlane::write_kubeconfig(const std::string& file, const std::string& user_lines) const {
  const fs::path path = dir_ / file;
  std::ofstream out(path, std::ios::trunc);
  out << "apiVersion: v1\nkind: Config\n"
      << "clusters:\n- name: ods-test\n  cluster:\n    server: " << server_url()
      << "\n    certificate-authority: " << certificates_.ca_cert().string() << "\n"
      << "users:\n- name: ods-test-user\n  user:\n"
      << user_lines << "contexts:\n- name: ods-test\n  context:\n    cluster: ods-test\n    user: ods-test-user\n"
      << "current-context: ods-test\n";
  return path;
}

ProcessResult KubeControlPlane::kubectl(const std::vector<std::string>& args) const {
  return kubectl_as(kubeconfig_, args);
}

ProcessResult KubeControlPlane::kubectl_as(const fs::path& kubeconfig, const std::vector<std::string>& args) const {
  const char* env = std::getenv("ODS_KUBECTL");
  std::vector<std::string> argv = {env && *env ? env : (bin_dir_ / "kubectl").string(),
                                   "--kubeconfig=" + kubeconfig.string(),
                                   "--cache-dir=" + (dir_ / "kubectl-cache").string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, dir_);
}

std::expected<fs::path, std::string> KubeControlPlane::service_account_kubeconfig(const std::string& namespace_name,
                                                                                  const std::string& account) {
  auto ensure = [&](std::vector<std::string> get, std::vector<std::string> create) -> std::expected<void, std::string> {
    if (kubectl(get).exit_code == 0) return {};
    ProcessResult r = kubectl(create);
    if (r.exit_code != 0) return std::unexpected("kubectl " + create.at(0) + " " + create.at(1) + ": " + r.errors);
    return {};
  };
  if (auto r = ensure({"get", "namespace", namespace_name}, {"create", "namespace", namespace_name}); !r)
    return std::unexpected(r.error());
  if (auto r = ensure({"get", "serviceaccount", account, "-n", namespace_name},
                      {"create", "serviceaccount", account, "-n", namespace_name});
      !r)
    return std::unexpected(r.error());
  ProcessResult token = kubectl({"create", "token", account, "-n", namespace_name, "--duration=1h"});
  if (token.exit_code != 0 || token.output.empty())
    return std::unexpected("kubectl create token " + account + " (TokenRequest API): " + token.errors);
  return write_kubeconfig("sa-" + namespace_name + "-" + account + ".kubeconfig",
                          "    token: " + last_line(token.output) + "\n");
}

}  // namespace ods::testing
