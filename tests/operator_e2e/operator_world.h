#pragma once
// The end-to-end world of the operator's tests, all real and on the loopback: a kube-apiserver
// and etcd with the CRDs installed (harness/kube_control_plane.h), a PostgreSQL server holding
// the state store (harness/postgres_server.h), the Secrets the operator reads (state DSN,
// callback key) and the dbt profile of a copy of examples/shop on DuckDB, the kubelet stand-in
// running runner Jobs as local `ods pod` processes (harness/kubelet_standin.h), any number of
// `ods-operator` processes (replicas), each on its own callback port, and a Service stand-in in
// front of them (harness/service_standin.py): runner pods and post_callback() reach the replicas
// through it, a connection to any replica still running, leader or not, as through the chart's
// Service.
#include <chrono>
#include <expected>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "harness/background_process.h"
#include "harness/dbt_project.h"
#include "harness/kube_control_plane.h"
#include "harness/kubelet_standin.h"
#include "harness/postgres_server.h"
#include "ods/kube/client.h"

namespace ods::testing {

inline constexpr const char* kAppNamespace = "analytics";        // the DbtProject and its runs
inline constexpr const char* kOperatorNamespace = "ods-system";  // Secrets and the Lease

// The Lease settings of a replica (flags --lease-duration, --renew-deadline, --retry-period).
struct LeaseTimings {
  std::string duration = "4s", renew_deadline = "3s", retry_period = "500ms";
};

// One ods-operator process.
struct OperatorReplica {
  std::string identity;
  int metrics_port = 0;
  int callback_port = 0;  // its own; the Service stand-in's port spreads over every replica's
  BackgroundProcess process;
};

// The world's secrets, each distinctive so that a search for it finds nothing else: the state
// store's password (in the DSN of Secret ods-system/ods-state; the test server trusts the loopback
// and ignores it), the callback key (Secret ods-system/ods-callback) and a warehouse password in
// the dbt profile (Secret analytics/shop-profile; dbt-duckdb ignores it).
inline constexpr const char* kStatePassword = "e2e-State-Pw-4c1d9a";
inline constexpr const char* kCallbackKey = "a-test-key-of-32-bytes-0123456789";
inline constexpr const char* kWarehousePassword = "e2e-Warehouse-Pw-77b2e0";

// The digest key of the shop project's runner pods (Secret shop-digest-key in the app
// namespace, spec.digestKeySecretRef): dim_customers' env-reading hook is fingerprinted.
inline constexpr const char* kShopDigestKey = "e2e-shop-digest-key-0123456789abcdef";

class OperatorWorld {
 public:
  // Starts everything but the operator; a message naming the failed step otherwise.
  [[nodiscard]] static std::expected<std::unique_ptr<OperatorWorld>, std::string> start();
  ~OperatorWorld();

  KubeControlPlane& plane() { return *plane_; }
  kube::Client& client() { return *client_; }
  DbtProject& project() { return *project_; }
  PostgresServer& postgres() { return *postgres_; }
  int callback_port() const { return callback_port_; }  // the Service stand-in's

  // The operator's own identity as the Helm chart installs it: renders the chart's ServiceAccount
  // and RBAC (helm template), applies them, and returns a kubeconfig with a token of that
  // ServiceAccount (ods-system/ods), so a replica runs with exactly the chart's permissions.
  [[nodiscard]] std::expected<std::filesystem::path, std::string> chart_service_account_kubeconfig();
  // Starts a replica (leader election, by default on a short Lease: 4 s, renew 3 s, retry
  // 0.5 s), as `kubeconfig` (default: the admin's).
  [[nodiscard]] std::expected<OperatorReplica*, std::string> start_operator(
      const std::string& identity, const std::filesystem::path& kubeconfig = {}, const LeaseTimings& lease = {});
  OperatorReplica& replica(const std::string& identity) { return *replicas_.at(identity); }
  // Waits until the replica's /readyz answers 200 (it leads and its controllers run).
  bool wait_ready(const std::string& identity, std::chrono::seconds timeout = std::chrono::seconds(30));
  // A replica of that name was started and has not exited.
  bool has_replica(const std::string& identity);
  // SIGKILL, as a crash or an evicted pod.
  void kill_operator(const std::string& identity);
  void stop_operator(const std::string& identity);
  // Stops every replica still running (each releases the Lease as it goes).
  void stop_all_operators();

  // The DbtProject `name` for the copy of examples/shop (image source: its directory).
  // with_digest_key: spec.digestKeySecretRef names the world's digest-key Secret, so the runner
  // pod digests dim_customers' env_var hook and can reuse it (issue #14); without it that node
  // builds on every run, which the tests that need a build in every run rely on.
  kube::Json shop_project(const std::string& name, const std::string& schedule = "0 6 * * *",
                          bool with_digest_key = false) const;
  // kubectl apply -f of a document written to a file; the result.
  ProcessResult kubectl_apply(const kube::Json& document);
  // Creates a manual DbtRun of `project`.
  [[nodiscard]] std::expected<kube::Json, std::string> create_run(const std::string& name, const std::string& project);
  // Polls `get` until `done` holds (every 200 ms) or the timeout; the last object seen.
  std::optional<kube::Json> wait_for(const kube::Resource& resource, const kube::ObjectKey& key,
                                     const std::function<bool(const kube::Json&)>& done,
                                     std::chrono::seconds timeout = std::chrono::seconds(240));
  // Waits until the run is Succeeded or Failed; the run, or nullopt on timeout.
  std::optional<kube::Json> wait_finished(const std::string& run,
                                          std::chrono::seconds timeout = std::chrono::seconds(300));
  // The callback token of run `name` (uid `uid`) under the world's callback key.
  std::string run_token(const std::string& name, const std::string& uid) const;
  // POSTs `body` to the callback server's `path` with a bearer token: the HTTP status and body.
  // To `port` instead when given (one replica's own callback port).
  std::pair<int, std::string> post_callback(const std::string& path, const std::string& token, const std::string& body,
                                            int port = 0) const;
  // What the runner pod of run `run` printed (the stand-in's log of the run's Job).
  std::string pod_log(const std::string& run) const;
  // The logs of every replica and the stand-in's problems, for failure messages.
  std::string diagnostics() const;

 private:
  OperatorWorld() = default;
  std::expected<void, std::string> make_secrets();
  // Writes the callback ports of the replicas still running to the Service stand-in's backends.
  void update_service_backends();

  std::unique_ptr<KubeControlPlane> plane_;
  std::unique_ptr<PostgresServer> postgres_;
  std::unique_ptr<kube::Client> client_;
  std::unique_ptr<DbtProject> project_;
  std::unique_ptr<KubeletStandin> standin_;
  std::map<std::string, std::unique_ptr<OperatorReplica>> replicas_;
  int processes_started_ = 0;  // numbers the replicas' log files
  int callback_port_ = 0;      // the Service stand-in's
  std::filesystem::path service_backends_;
  BackgroundProcess service_;
};

// status.phase of a DbtRun ("" when none).
std::string phase_of(const kube::Json& run);

}  // namespace ods::testing
