#include "operator_world.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "harness/eventually.h"
#include "harness/loopback_port.h"
#include "ods/callback/run_token.h"
#include "ods/control/run_job.h"
#include "ods/kube/config.h"
#include "ods/kube/rest_client.h"

namespace ods::testing {
namespace {

using kube::Json;

std::string describe(const ProcessResult& r) {
  return "exit code " + std::to_string(r.exit_code) + "\n" + r.output + r.errors;
}

std::string base64(const std::string& in) {
  static const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    unsigned v = (static_cast<unsigned char>(in[i]) << 16) | (static_cast<unsigned char>(in[i + 1]) << 8) |
                 static_cast<unsigned char>(in[i + 2]);
    out += {kAlphabet[(v >> 18) & 63], kAlphabet[(v >> 12) & 63], kAlphabet[(v >> 6) & 63], kAlphabet[v & 63]};
  }
  if (i + 1 == in.size()) {
    unsigned v = static_cast<unsigned char>(in[i]) << 16;
    out += {kAlphabet[(v >> 18) & 63], kAlphabet[(v >> 12) & 63], '=', '='};
  } else if (i + 2 == in.size()) {
    unsigned v = (static_cast<unsigned char>(in[i]) << 16) | (static_cast<unsigned char>(in[i + 1]) << 8);
    out += {kAlphabet[(v >> 18) & 63], kAlphabet[(v >> 12) & 63], kAlphabet[(v >> 6) & 63], '='};
  }
  return out;
}

Json secret(const std::string& ns, const std::string& name, const std::map<std::string, std::string>& data) {
  Json d = Json::object();
  for (const auto& [k, v] : data) d[k] = base64(v);
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"type", "Opaque"},
          {"data", d}};
}

std::filesystem::path operator_binary() { return bin_dir() / "ods-operator"; }

// Waits for the replica's "ods-operator started" line, which it logs once /metrics listens.
// "port_taken" when it exited because the port was no longer free (the caller retries with
// another); any other exit or silence is an error carrying the log.
std::expected<void, std::string> wait_started(BackgroundProcess& process) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    const std::string log = process.log_tail(50);
    if (log.find("\"msg\":\"ods-operator started\"") != std::string::npos) return {};
    if (process.exited()) {
      if (log.find("cannot serve /metrics") != std::string::npos ||
          log.find("cannot listen for callbacks") != std::string::npos)
        return std::unexpected("port_taken");
      return std::unexpected("exited before serving /metrics:\n" + log);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return std::unexpected("did not serve /metrics within 60 s:\n" + process.log_tail(50));
}

}  // namespace

std::string phase_of(const Json& run) { return run.contains("status") ? run["status"].value("phase", "") : ""; }

std::expected<std::unique_ptr<OperatorWorld>, std::string> OperatorWorld::start() {
  // The runner pod's /tmp is an emptyDir, which the stand-in maps to a folder of the pod; the
  // project (the image's path) and everything else of the test live outside it.
  ::setenv("TMPDIR", "/var/tmp", 1);
  std::unique_ptr<OperatorWorld> w(new OperatorWorld());
  auto plane = KubeControlPlane::start();
  if (!plane) return std::unexpected("control plane: " + plane.error());
  w->plane_ = std::move(*plane);
  ProcessResult crds = w->plane_->kubectl({"apply", "-f", (source_dir() / "crds").string()});
  ProcessResult established = w->plane_->kubectl(
      {"wait", "--for=condition=Established", "--timeout=60s", "crd/dbtprojects.ods.dev", "crd/dbtruns.ods.dev"});
  if (crds.exit_code != 0 || established.exit_code != 0) {
    return std::unexpected("kubectl apply -f crds/: " + describe(crds) + describe(established));
  }
  for (const char* ns : {kAppNamespace, kOperatorNamespace}) {
    ProcessResult r = w->plane_->kubectl({"create", "namespace", ns});
    if (r.exit_code != 0) return std::unexpected("kubectl create namespace: " + describe(r));
  }
  auto postgres = PostgresServer::start();
  if (!postgres) return std::unexpected("PostgreSQL: " + postgres.error());
  w->postgres_ = std::move(*postgres);
  auto config = kube::load_kubeconfig(w->plane_->kubeconfig());
  if (!config) return std::unexpected("kubeconfig: " + config.error().message);
  auto client = kube::make_client(*config);
  if (!client) return std::unexpected("client: " + client.error().message);
  w->client_ = std::move(*client);

  w->project_ = std::make_unique<DbtProject>("shop");
  ProcessResult data = w->project_->generate_data();
  if (data.exit_code != 0) return std::unexpected("generate_data: " + describe(data));
  if (auto made = w->make_secrets(); !made) return std::unexpected(made.error());

  auto port = free_loopback_port();
  if (!port) return std::unexpected(port.error());
  w->callback_port_ = *port;
  w->service_backends_ = w->plane_->dir() / "service-backends";
  w->update_service_backends();
  const auto service_log = w->plane_->dir() / "service-standin.log";
  auto service = w->service_.start({"/usr/bin/python3", (source_dir() / "tests/harness/service_standin.py").string(),
                                    std::to_string(w->callback_port_), w->service_backends_.string()},
                                   w->plane_->dir(), service_log);
  if (!service) return std::unexpected("service stand-in: " + service.error());
  if (!eventually(
          std::chrono::seconds(30),
          [&] { return w->service_.exited() || w->service_.log_tail(5).find("listening") != std::string::npos; }) ||
      w->service_.exited())
    return std::unexpected("service stand-in did not listen: " + w->service_.log_tail(20));
  // Runner pods find dbt on PATH, as in the runner image (the stand-in passes this PATH on).
  const char* path = std::getenv("PATH");
  ::setenv("PATH", (venv_bin().string() + ":" + (path ? path : "/usr/bin:/bin")).c_str(), 1);
  KubeletStandin::Options standin;
  standin.namespace_name = kAppNamespace;
  standin.root = w->plane_->dir() / "pods";
  standin.executables = {{"ods", ods_binary().string()}};
  w->standin_ = std::make_unique<KubeletStandin>(*w->client_, standin);
  w->standin_->start();
  return w;
}

std::expected<void, std::string> OperatorWorld::make_secrets() {
  const std::string profile = "shop:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n      path: \"" +
                              (project_->dir() / "shop.duckdb").string() + "\"\n      threads: 2\n" +
                              "      password: " + kWarehousePassword + "\n";
  const Json secrets[] = {
      secret(kOperatorNamespace, "ods-state", {{"dsn", postgres_->dsn() + " password=" + kStatePassword}}),
      secret(kOperatorNamespace, "ods-callback-key",
             {{"key", kCallbackKey}}),  // the chart's default name: its Role reads it by name
      secret(kAppNamespace, "shop-profile", {{"profiles.yml", profile}}),
      secret(kAppNamespace, "shop-digest-key", {{"digest-key", kShopDigestKey}}),
  };
  for (const auto& s : secrets) {
    auto created = client_->create(kube::resources::kSecrets, s["metadata"]["namespace"], s);
    if (!created)
      return std::unexpected("Secret " + s["metadata"]["name"].get<std::string>() + ": " + created.error().message);
  }
  return {};
}

OperatorWorld::~OperatorWorld() {
  for (auto& [id, replica] : replicas_) replica->process.stop(std::chrono::seconds(5));
  if (standin_) standin_->stop();
  service_.stop(std::chrono::seconds(2));
}

void OperatorWorld::update_service_backends() {
  std::ofstream backends(service_backends_, std::ios::trunc);
  for (auto& [id, replica] : replicas_)
    if (!replica->process.exited()) backends << replica->callback_port << "\n";
}

std::expected<OperatorReplica*, std::string> OperatorWorld::start_operator(const std::string& identity,
                                                                           const std::filesystem::path& kubeconfig,
                                                                           const LeaseTimings& lease) {
  // A free port may be taken by another process before the replica binds it: then it exits
  // saying so, and starts again on another port.
  for (int attempt = 1;; ++attempt) {
    auto metrics_port = free_loopback_port();
    if (!metrics_port) return std::unexpected(metrics_port.error());
    auto own_callback_port = free_loopback_port();
    if (!own_callback_port) return std::unexpected(own_callback_port.error());
    auto replica = std::make_unique<OperatorReplica>();
    replica->identity = identity;
    replica->metrics_port = *metrics_port;
    replica->callback_port = *own_callback_port;
    std::vector<std::string> argv{operator_binary().string(),
                                  "--kubeconfig",
                                  (kubeconfig.empty() ? plane_->kubeconfig() : kubeconfig).string(),
                                  "--state-secret",
                                  std::string(kOperatorNamespace) + "/ods-state",
                                  "--callback-key-secret",
                                  std::string(kOperatorNamespace) + "/ods-callback-key",
                                  "--callback-listen",
                                  "127.0.0.1:" + std::to_string(*own_callback_port),
                                  "--callback-url",
                                  "http://127.0.0.1:" + std::to_string(callback_port_),
                                  "--metrics-listen",
                                  "127.0.0.1:" + std::to_string(*metrics_port),
                                  "--lease",
                                  std::string(kOperatorNamespace) + "/ods-operator",
                                  "--identity",
                                  identity,
                                  "--lease-duration",
                                  lease.duration,
                                  "--renew-deadline",
                                  lease.renew_deadline,
                                  "--retry-period",
                                  lease.retry_period,
                                  "--log-level",
                                  "debug"};
    // One log per process, so the wait below reads this process's lines only.
    const auto log = plane_->dir() / ("operator-" + identity + "-" + std::to_string(++processes_started_) + ".log");
    auto started = replica->process.start(argv, plane_->dir(), log);
    if (!started) return std::unexpected(started.error());
    auto serving = wait_started(replica->process);
    if (!serving && serving.error() == "port_taken" && attempt < 5) continue;
    if (!serving) {
      replica->process.stop(std::chrono::seconds(5));
      return std::unexpected("replica " + identity + ": " + serving.error());
    }
    auto* raw = replica.get();
    replicas_[identity] = std::move(replica);
    update_service_backends();
    return raw;
  }
}

void OperatorWorld::kill_operator(const std::string& identity) {
  auto& r = replica(identity);
  if (r.process.pid() > 0) ::kill(r.process.pid(), SIGKILL);
  if (!eventually(
          std::chrono::seconds(60), [&] { return r.process.exited(); }, std::chrono::milliseconds(20))) {
    ADD_FAILURE() << "replica " << identity << " still runs 60 s after SIGKILL";
  }
  update_service_backends();
}

std::expected<std::filesystem::path, std::string> OperatorWorld::chart_service_account_kubeconfig() {
  auto helm_found = helm_binary();
  if (!helm_found) return std::unexpected(helm_found.error());
  const std::filesystem::path helm = *helm_found;
  const auto home = plane_->dir() / "helm-home";
  ProcessResult rendered = run_process(
      {helm.string(), "template", "ods", (source_dir() / "helm" / "ods").string(), "--namespace", kOperatorNamespace,
       "--show-only", "templates/serviceaccount.yaml", "--show-only", "templates/rbac.yaml"},
      source_dir(),
      {"HELM_CACHE_HOME=" + (home / "cache").string(), "HELM_CONFIG_HOME=" + (home / "config").string(),
       "HELM_DATA_HOME=" + (home / "data").string()});
  if (rendered.exit_code != 0) return std::unexpected("helm template: " + describe(rendered));
  const auto manifests = plane_->dir() / "chart-rbac.yaml";
  std::ofstream(manifests, std::ios::trunc) << rendered.output;
  ProcessResult applied = plane_->kubectl({"apply", "-f", manifests.string()});
  if (applied.exit_code != 0) return std::unexpected("kubectl apply of the chart's RBAC: " + describe(applied));
  return plane_->service_account_kubeconfig(kOperatorNamespace, "ods");
}

void OperatorWorld::stop_all_operators() {
  for (auto& [id, replica] : replicas_) replica->process.stop();
  update_service_backends();
}

bool OperatorWorld::wait_ready(const std::string& identity, std::chrono::seconds timeout) {
  return eventually(
      timeout,
      [&] {
        auto answer = loopback_http_get(replica(identity).metrics_port, "/readyz");
        return answer && answer->find(" 200 ") != std::string::npos;
      },
      std::chrono::milliseconds(200));
}

bool OperatorWorld::has_replica(const std::string& identity) {
  auto it = replicas_.find(identity);
  return it != replicas_.end() && !it->second->process.exited();
}

std::string OperatorWorld::run_token(const std::string& name, const std::string& uid) const {
  auto tokens = callback::RunTokens::from_key(kCallbackKey);
  return tokens ? tokens->token_for(kAppNamespace, name, uid) : "";
}

std::pair<int, std::string> OperatorWorld::post_callback(const std::string& path, const std::string& token,
                                                         const std::string& body, int port) const {
  const std::string program =
      "import sys, urllib.request, urllib.error\n"
      "req = urllib.request.Request(sys.argv[1], data=sys.argv[3].encode(), method='POST',\n"
      "    headers={'Authorization': 'Bearer ' + sys.argv[2], 'Content-Type': 'application/json'})\n"
      "try:\n"
      "    r = urllib.request.urlopen(req, timeout=30); print(r.status); print(r.read().decode())\n"
      "except urllib.error.HTTPError as e:\n"
      "    print(e.code); print(e.read().decode())\n";
  ProcessResult r =
      run_process({"python3", "-c", program, "http://127.0.0.1:" + std::to_string(port ? port : callback_port_) + path,
                   token, body},
                  plane_->dir());
  const auto newline = r.output.find('\n');
  if (r.exit_code != 0 || newline == std::string::npos) return {-1, r.output + r.errors};
  return {std::atoi(r.output.substr(0, newline).c_str()), r.output.substr(newline + 1)};
}

void OperatorWorld::stop_operator(const std::string& identity) {
  replica(identity).process.stop();
  update_service_backends();
}

Json OperatorWorld::shop_project(const std::string& name, const std::string& schedule, bool with_digest_key) const {
  Json project{{"apiVersion", "ods.dev/v1alpha1"},
               {"kind", "DbtProject"},
               {"metadata", {{"name", name}, {"namespace", kAppNamespace}}},
               {"spec",
                {{"source", {{"image", {{"path", project_->dir().string()}}}}},
                 {"image", "ods-runner:test"},
                 {"profileSecretRef", {{"name", "shop-profile"}}},
                 {"target", "dev"},
                 {"schedule", schedule},
                 {"policies", {{"runTimeout", "10m"}}},
                 {"historyLimit", 10}}}};
  if (with_digest_key) project["spec"]["digestKeySecretRef"] = {{"name", "shop-digest-key"}};
  return project;
}

ProcessResult OperatorWorld::kubectl_apply(const Json& document) {
  const auto file = plane_->dir() / "apply.json";
  std::ofstream(file, std::ios::trunc) << document.dump(2);
  return plane_->kubectl({"apply", "-f", file.string()});
}

std::expected<Json, std::string> OperatorWorld::create_run(const std::string& name, const std::string& project) {
  Json run{{"apiVersion", "ods.dev/v1alpha1"},
           {"kind", "DbtRun"},
           {"metadata", {{"name", name}, {"namespace", kAppNamespace}}},
           {"spec", {{"projectRef", {{"name", project}}}, {"trigger", "Manual"}}}};
  auto created = client_->create(kube::resources::kDbtRuns, kAppNamespace, run);
  if (!created) return std::unexpected(created.error().message);
  return *created;
}

std::optional<Json> OperatorWorld::wait_for(const kube::Resource& resource, const kube::ObjectKey& key,
                                            const std::function<bool(const Json&)>& done,
                                            std::chrono::seconds timeout) {
  std::optional<Json> last;
  const bool reached = eventually(
      timeout,
      [&] {
        auto found = client_->find(resource, key);
        if (!found || !*found) return false;
        last = **found;
        return done(*last);
      },
      std::chrono::milliseconds(200));
  return reached ? last : std::nullopt;
}

std::optional<Json> OperatorWorld::wait_finished(const std::string& run, std::chrono::seconds timeout) {
  return wait_for(
      kube::resources::kDbtRuns, {kAppNamespace, run},
      [](const Json& r) { return phase_of(r) == "Succeeded" || phase_of(r) == "Failed"; }, timeout);
}

std::string OperatorWorld::pod_log(const std::string& run) const {
  std::ifstream in(plane_->dir() / "pods" / (control::runner_job_name(run) + "-standin") / "log");
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string OperatorWorld::diagnostics() const {
  std::string out;
  for (const auto& [id, r] : replicas_) out += "--- operator " + id + " log:\n" + r->process.log_tail(60) + "\n";
  if (standin_) {
    for (const auto& p : standin_->problems()) out += "stand-in: " + p + "\n";
  }
  std::error_code ignored;
  for (const auto& pod : std::filesystem::directory_iterator(plane_->dir() / "pods", ignored)) {
    if (std::filesystem::exists(pod.path() / "log")) {
      out += "--- pod " + pod.path().filename().string() + ":\n" + file_tail(pod.path() / "log", 40) + "\n";
    }
  }
  return out;
}

}  // namespace ods::testing
