// ods-operator: flags, wiring, call in (docs/kubernetes.md). Exit codes: 0 stopped by SIGTERM or
// SIGINT; 1 failed to start or lost the leadership (the Deployment restarts it, as
// controller-runtime's managers do); 2 a bad flag.
#include <malloc.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <mutex>

#include "cluster_secrets.h"
#include "ods/callback/callback_server.h"
#include "ods/callback/leader_gate.h"
#include "ods/kube/config.h"
#include "ods/kube/leader_election.h"
#include "ods/kube/rest_client.h"
#include "ods/state/stores.h"
#include "ods/telemetry/endpoint_server.h"
#include "operator_options.h"
#include "operator_runtime.h"

namespace {

using namespace ods;
using namespace ods::operator_app;

sigset_t stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  return set;
}

Result<kube::ClusterConfig> cluster_config(const OperatorOptions& o) {
  std::string kubeconfig = o.kubeconfig;
  if (kubeconfig.empty()) {
    if (const char* env = std::getenv("KUBECONFIG"); env && *env) kubeconfig = env;
  }
  return kubeconfig.empty() ? kube::in_cluster_config() : kube::load_kubeconfig(kubeconfig);
}

// The leader's work, started and stopped by leader election (or at once without it).
class Leadership {
 public:
  Leadership(RuntimeDeps deps, telemetry::Logger log) : deps_(std::move(deps)), log_(std::move(log)) {}
  void start_leading() {
    std::lock_guard lock(mutex_);
    deps_.metrics.set_leader(true);
    log_.info("started leading", {{"identity", deps_.options.identity}});
    starting_ = true;
    auto runtime = OperatorRuntime::start(deps_, std::chrono::seconds(60));
    starting_ = false;
    if (!runtime) {
      log_.error("cannot start the controllers", {{"error", runtime.error().message}});
      std::_Exit(1);
    }
    runtime_ = std::move(*runtime);
  }
  // Losing the Lease ends the process: whatever it was doing may now be done by the new leader.
  void stop_leading(bool shutting_down) {
    std::lock_guard lock(mutex_);
    deps_.metrics.set_leader(false);
    runtime_.reset();
    if (!shutting_down) {
      log_.error("lost the leader Lease; exiting so a fresh process competes again", {});
      std::_Exit(1);
    }
  }
  // Readiness: a replica is ready while it follows or leads, not while it is becoming the leader
  // (its informers syncing). Never waits for start_leading().
  telemetry::CheckStatus readiness() const {
    return starting_ ? telemetry::CheckStatus::failing("starting the controllers (the informers are syncing)")
                     : telemetry::CheckStatus::passing();
  }

 private:
  RuntimeDeps deps_;
  telemetry::Logger log_;
  std::mutex mutex_;
  std::atomic<bool> starting_{false};
  std::unique_ptr<OperatorRuntime> runtime_;
};

int run(const OperatorOptions& o) {
  telemetry::LogLevel level = telemetry::LogLevel::info;
  telemetry::parse_log_level(o.log_level, level);
  telemetry::Logger log("ods-operator", level);
  auto fail_start = [&](const std::string& what, const Error& e) {
    log.error(what, {{"error", e.message}});
    return 1;
  };
  auto config = cluster_config(o);
  if (!config) return fail_start("no cluster configuration", config.error());
  auto client = kube::make_client(*config);
  if (!client) return fail_start("cannot make the Kubernetes client", client.error());
  auto dsn = read_secret_value(**client, o.state_secret);
  if (!dsn) return fail_start("cannot read the state store's Secret", dsn.error());
  auto key = read_secret_value(**client, o.callback_key);
  if (!key) return fail_start("cannot read the callback key's Secret", key.error());
  auto tokens = callback::RunTokens::from_key(*key);
  if (!tokens) return fail_start("the callback key is not usable", tokens.error());
  state::OpenOptions store_options;
  store_options.on_notice = [&](const std::string& notice) { log.info(notice, {}); };
  auto store = state::open_postgres_store(*dsn, ods::system_clock(), store_options);
  if (!store) return fail_start("cannot open the PostgreSQL state store", store.error());

  // Every replica listens on the callback port; a follower's gate answers 503 not_leader and the
  // runner pod retries, so the Service may route to any ready replica (leader_gate.h).
  callback::LeaderGate gate;
  callback::CallbackServerOptions callback_options;
  callback_options.host = o.callback_listen.host;
  callback_options.port = o.callback_listen.port;
  callback_options.on_refused = [log = log.child("callback")](const callback::RefusedRequest& r) {
    if (r.status == 503 && r.body.find(callback::kNotLeaderCode) != std::string::npos) {
      log.debug("callback request refused: not the leader", {{"method", r.method}, {"path", r.path}});
      return;
    }
    log.warn("callback request refused",
             {{"method", r.method}, {"path", r.path}, {"status", r.status}, {"error", r.body}});
  };
  auto callback_server = callback::start_callback_server(callback_options, gate);
  if (!callback_server) return fail_start("cannot listen for callbacks", callback_server.error());

  telemetry::OperatorMetrics metrics;
  Leadership leadership(RuntimeDeps{**client, **store, *tokens, metrics, log, o, gate}, log);
  telemetry::EndpointOptions endpoint;
  endpoint.host = o.metrics_listen.host;
  endpoint.port = o.metrics_listen.port;
  // Ready means healthy, leader or follower: a rollout (maxUnavailable 0) waits for the new pod
  // to be ready while the old one still holds the Lease.
  endpoint.readiness = [&leadership]() { return leadership.readiness(); };
  auto endpoints = telemetry::EndpointServer::start(endpoint, metrics.collectable());
  if (!endpoints) return fail_start("cannot serve /metrics", endpoints.error());
  log.info("ods-operator started", {{"identity", o.identity},
                                    {"metrics", (*endpoints)->url()},
                                    {"callback", (*callback_server)->url()},
                                    {"cluster", config->origin},
                                    {"leader_elect", o.leader_elect}});

  std::unique_ptr<kube::LeaderElector> elector;
  std::atomic<bool> shutting_down{false};
  if (o.leader_elect) {
    kube::LeaderElectionOptions election;
    election.lease = {o.lease_namespace, o.lease_name};
    election.identity = o.identity;
    election.lease_duration = o.lease_duration;
    election.renew_deadline = o.renew_deadline;
    election.retry_period = o.retry_period;
    elector = std::make_unique<kube::LeaderElector>(
        **client, election,
        kube::LeaderCallbacks{[&] { leadership.start_leading(); }, [&] { leadership.stop_leading(shutting_down); }});
    elector->start();
  } else {
    leadership.start_leading();
  }

  const sigset_t signals = stop_signals();
  int signal = 0;
  sigwait(&signals, &signal);
  log.info("stopping", {{"signal", signal}});
  shutting_down = true;
  if (elector) elector->stop();  // stops leading, then releases the Lease
  leadership.stop_leading(true);
  (*endpoints)->stop();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Resident memory (docs/benchmarks.md, "Operator at scale"): glibc gives each thread that
  // allocates an arena of its own (up to 8 per core) and keeps what each arena freed; with the
  // informers', workers' and HTTP client's threads parsing lists and watch events that kept
  // 250 MB resident at 1,000 projects, where 2 arenas keep 95 MB. MALLOC_ARENA_MAX set in the
  // environment still decides.
  if (std::getenv("MALLOC_ARENA_MAX") == nullptr) mallopt(M_ARENA_MAX, 2);
  // Every thread started from here on inherits the blocked stop signals; run() waits for them.
  const sigset_t signals = stop_signals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  auto options = parse_operator_options(std::vector<std::string>(argv + 1, argv + argc));
  if (!options) {
    std::cerr << "ods-operator: " << options.error().message << "\n";
    return 2;
  }
  if (options->help) {
    std::cout << operator_usage();
    return 0;
  }
  return run(*options);
}
