// operator_scale_bench: ods-operator with many DbtProjects on a real kube-apiserver and etcd
// (tests/harness/kube_control_plane.h) and a real PostgreSQL state store. Creates N projects
// (half suspended, half on a yearly schedule: no run is due) and H finished DbtRuns of each
// (their history), then starts one operator (leader election on, as the chart runs it) and
// measures:
//   - start: from exec to /readyz 200 (informers synced, controllers started), and until every
//     object was reconciled once (the queues drained);
//   - burst: the operator is frozen (SIGSTOP), every project is touched (an annotation), the
//     operator resumes: reconciles per second until the queues drained again, the API
//     requests per reconcile the operator made meanwhile (kube-apiserver's own counter), and
//     the mean reconcile time;
//   - resident memory (VmRSS) after the burst;
//   - idle: over a quiet minute, the operator's CPU seconds, its reconciles and its writes
//     (requests other than GET/LIST/WATCH; the Lease renewals counted apart).
// Prints the figures and their ratios to the targets (>= 100 reconciles/s, <= 50 MB resident
// per 1,000 projects, no reconcile and no write when nothing changes).
//
//   operator_scale_bench [PROJECTS [RUNS_PER_PROJECT [QUIET_SECONDS]]]   defaults: 1000 3 60
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "harness/background_process.h"
#include "harness/kube_control_plane.h"
#include "harness/loopback_port.h"
#include "harness/postgres_server.h"
#include "ods/base/elapsed.h"
#include "ods/kube/client.h"
#include "ods/kube/config.h"
#include "ods/kube/rest_client.h"

namespace {

using namespace ods::testing;
using ods::seconds_since;
using ods::kube::Json;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

constexpr const char* kNamespace = "bench";
constexpr const char* kSystem = "ods-system";
constexpr int kWriters = 4;  // client threads creating and touching objects

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "operator_scale_bench: %s\n", what.c_str());
  std::exit(1);
}

std::unique_ptr<ods::kube::Client> client_for(const KubeControlPlane& plane) {
  auto config = ods::kube::load_kubeconfig(plane.kubeconfig());
  if (!config) die("kubeconfig: " + config.error().message);
  auto client = ods::kube::make_client(*config);
  if (!client) die("client: " + client.error().message);
  return std::move(*client);
}

// Runs `work(client, i)` for i in [0, count) on kWriters threads, each with its own client.
void in_parallel(const KubeControlPlane& plane, int count, const std::function<void(ods::kube::Client&, int)>& work) {
  std::vector<std::thread> threads;
  for (int t = 0; t < kWriters; ++t) {
    threads.emplace_back([&, t] {
      auto client = client_for(plane);
      for (int i = t; i < count; i += kWriters) work(*client, i);
    });
  }
  for (auto& thread : threads) thread.join();
}

std::string project_name(int i) { return "p" + std::to_string(i); }

Json project(int i) {
  Json spec{{"source", {{"image", {{"path", "/srv/dbt"}}}}},
            {"image", "ods-runner:bench"},
            {"profileSecretRef", {{"name", "profile"}}},
            {"target", "prod"},
            {"historyLimit", 10}};
  if (i % 2 == 0) {
    spec["suspend"] = true;
    spec["schedule"] = "0 6 * * *";
  } else {
    spec["schedule"] = "0 0 1 1 *";  // yearly: never due during the benchmark
  }
  return {{"apiVersion", "ods.dev/v1alpha1"},
          {"kind", "DbtProject"},
          {"metadata", {{"name", project_name(i)}, {"namespace", kNamespace}}},
          {"spec", spec}};
}

Json secret(const std::string& name, const std::string& key, const std::string& value) {
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata", {{"name", name}, {"namespace", kSystem}}},
          {"stringData", {{key, value}}}};
}

// The sample values of `name` in Prometheus text, summed over the series whose labels contain
// every one of `labels`.
double metric(const std::string& text, const std::string& name, const std::vector<std::string>& labels = {}) {
  double sum = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(name, 0) != 0 || (line.size() > name.size() && line[name.size()] != '{' && line[name.size()] != ' '))
      continue;
    bool all = true;
    for (const auto& l : labels) all = all && line.find(l) != std::string::npos;
    if (all) sum += std::stod(line.substr(line.rfind(' ') + 1));
  }
  return sum;
}

struct ApiCounts {
  double reads = 0, writes = 0, lease_writes = 0;  // the operator's requests, by kind
};

// kube-apiserver's apiserver_request_total, of the operator's requests only: the bench's own
// client runs as the admin and writes only while the operator is frozen or before it starts, so
// requests are told apart by time; WATCH requests are counted when they start.
ApiCounts api_counts(const KubeControlPlane& plane) {
  ProcessResult raw = plane.kubectl({"get", "--raw", "/metrics"});
  if (raw.exit_code != 0) die("kubectl get --raw /metrics: " + raw.errors);
  ApiCounts c;
  std::istringstream lines(raw.output);
  const std::regex verb(R"(verb="([A-Z]+)\")"), resource(R"(resource="([a-z]+)\")");
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("apiserver_request_total{", 0) != 0) continue;
    std::smatch v, r;
    if (!std::regex_search(line, v, verb)) continue;
    std::regex_search(line, r, resource);
    const double n = std::stod(line.substr(line.rfind(' ') + 1));
    const std::string what = v[1];
    if (what == "GET" || what == "LIST" || what == "WATCH") {
      c.reads += n;
    } else if (r.size() > 1 && r[1] == "leases") {
      c.lease_writes += n;
    } else {
      c.writes += n;
    }
  }
  return c;
}

double cpu_seconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  std::istringstream fields(text.substr(text.rfind(')') + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; fields >> field; ++i) {
    if (i == 14 || i == 15) ticks += std::stod(field);  // utime, stime
    if (i == 15) break;
  }
  return ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

double resident_mb(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024;
  return 0;
}

std::string scrape(int port) {
  auto got = loopback_http_get(port, "/metrics");
  return got ? *got : "";
}

// Waits until the operator's queues are empty and `reconciles` stops growing for a second;
// the reconcile count then.
double wait_drained(int port, double at_least, std::chrono::seconds timeout) {
  const auto deadline = Clock::now() + timeout;
  double last = -1;
  while (Clock::now() < deadline) {
    const std::string text = scrape(port);
    const double done = metric(text, "controller_runtime_reconcile_total");
    if (done >= at_least && metric(text, "workqueue_depth") == 0 && done == last) return done;
    last = done;
    std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  }
  die("the operator's queues did not drain within " + std::to_string(timeout.count()) + " s");
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // forked children must not repeat buffered lines
  const int projects = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int runs_per_project = argc > 2 ? std::atoi(argv[2]) : 3;
  const int quiet = argc > 3 ? std::atoi(argv[3]) : 60;
  std::printf("operator_scale_bench: %d projects, %d finished runs each, quiet %d s\n", projects, runs_per_project,
              quiet);

  auto plane = KubeControlPlane::start();
  if (!plane) die("control plane: " + plane.error());
  KubeControlPlane& p = **plane;
  if (p.kubectl({"apply", "-f", (source_dir() / "crds").string()}).exit_code != 0) die("kubectl apply crds/");
  p.kubectl({"wait", "--for=condition=Established", "--timeout=60s", "crd/dbtprojects.ods.dev", "crd/dbtruns.ods.dev"});
  for (const char* ns : {kNamespace, kSystem}) p.kubectl({"create", "namespace", ns});
  auto postgres = PostgresServer::start();
  if (!postgres) die("PostgreSQL: " + postgres.error());
  auto admin = client_for(p);
  for (const auto& s : {secret("ods-state", "dsn", (*postgres)->dsn()),
                        secret("ods-callback", "key", "a-bench-key-of-32-bytes-0123456789")}) {
    if (auto made = admin->create(ods::kube::resources::kSecrets, kSystem, s); !made) die(made.error().message);
  }

  // The projects and their history: runs that Succeeded a day ago.
  auto created = Clock::now();
  in_parallel(p, projects, [&](ods::kube::Client& c, int i) {
    if (auto made = c.create(ods::kube::resources::kDbtProjects, kNamespace, project(i)); !made)
      die("create " + project_name(i) + ": " + made.error().message);
    for (int r = 0; r < runs_per_project; ++r) {
      const std::string name = project_name(i) + "-" + std::to_string(r);
      Json run{
          {"apiVersion", "ods.dev/v1alpha1"},
          {"kind", "DbtRun"},
          {"metadata", {{"name", name}, {"namespace", kNamespace}, {"labels", {{"ods.dev/project", project_name(i)}}}}},
          {"spec", {{"projectRef", {{"name", project_name(i)}}}, {"trigger", "Manual"}}}};
      if (auto made = c.create(ods::kube::resources::kDbtRuns, kNamespace, run); !made) die(made.error().message);
      Json status{{"status",
                   {{"phase", "Succeeded"},
                    {"startTime", "2026-11-30T06:00:00Z"},
                    {"completionTime", "2026-11-30T06:0" + std::to_string(r) + ":30Z"},
                    {"plan", {{"total", 12}, {"built", 3}, {"reused", 9}}}}}};
      if (auto set =
              c.merge_patch(ods::kube::resources::kDbtRuns, {kNamespace, name}, status, ods::kube::Subresource::status);
          !set)
        die(set.error().message);
    }
  });
  std::printf("created %d DbtProjects and %d DbtRuns in %.1f s\n", projects, projects * runs_per_project,
              seconds_since(created));

  // The operator.
  auto metrics_port = free_loopback_port();
  auto callback_port = free_loopback_port();
  if (!metrics_port || !callback_port) die("no free port");
  const std::string callback = "127.0.0.1:" + std::to_string(*callback_port);
  BackgroundProcess op;
  const ApiCounts before_start = api_counts(p);
  const auto started = Clock::now();
  auto launched =
      op.start({(fs::path(ODS_BIN_DIR) / "ods-operator").string(), "--kubeconfig", p.kubeconfig().string(),
                "--state-secret", std::string(kSystem) + "/ods-state", "--callback-key-secret",
                std::string(kSystem) + "/ods-callback", "--callback-listen", callback, "--callback-url",
                "http://" + callback, "--metrics-listen", "127.0.0.1:" + std::to_string(*metrics_port), "--lease",
                std::string(kSystem) + "/ods-operator", "--identity", "bench", "--log-level", "warning",
                // The burst freezes the operator while 1,000 projects are touched (tens of seconds on
                // a loaded machine): with the default 15 s Lease it would lose the lead and exit.
                "--lease-duration", "10m", "--renew-deadline", "9m"},
               p.dir(), p.dir() / "operator.log");
  if (!launched) die(launched.error());
  double ready_seconds = -1;
  while (seconds_since(started) < 300 && !op.exited()) {
    auto answer = loopback_http_get(*metrics_port, "/readyz");
    if (answer && answer->find(" 200 ") != std::string::npos) {
      ready_seconds = seconds_since(started);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (ready_seconds < 0) die("the operator did not become ready:\n" + op.log_tail(30));
  const double objects = projects + static_cast<double>(projects) * runs_per_project;
  const double initial = wait_drained(*metrics_port, objects, std::chrono::seconds(600));
  const double settled_seconds = seconds_since(started) - 1;  // the drain check waits a second
  const ApiCounts after_start = api_counts(p);
  std::printf("start: ready (synced) after %.2f s; %0.f reconciles done after %.1f s; %.0f reads, %.0f writes\n",
              ready_seconds, initial, settled_seconds, after_start.reads - before_start.reads,
              after_start.writes - before_start.writes);

  // The burst: every project touched while the operator is frozen.
  const std::string text_before = scrape(*metrics_port);
  const double reconciles_before = metric(text_before, "controller_runtime_reconcile_total");
  const double time_sum_before = metric(text_before, "controller_runtime_reconcile_time_seconds_sum");
  ::kill(op.pid(), SIGSTOP);
  in_parallel(p, projects, [&](ods::kube::Client& c, int i) {
    Json touch{{"metadata", {{"annotations", {{"bench.ods.dev/touched", std::to_string(i)}}}}}};
    if (auto done = c.merge_patch(ods::kube::resources::kDbtProjects, {kNamespace, project_name(i)}, touch); !done)
      die(done.error().message);
  });
  const ApiCounts api_before = api_counts(p);
  const auto resumed = Clock::now();
  ::kill(op.pid(), SIGCONT);
  double burst_seconds = -1;
  while (seconds_since(resumed) < 600) {
    if (op.exited()) die("the operator exited during the burst:\n" + op.log_tail(10));
    const std::string text = scrape(*metrics_port);
    if (metric(text, "controller_runtime_reconcile_total") >= reconciles_before + projects &&
        metric(text, "workqueue_depth") == 0) {
      burst_seconds = seconds_since(resumed);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (burst_seconds < 0) die("the burst did not drain within 600 s");
  const double burst_done = wait_drained(*metrics_port, reconciles_before + projects, std::chrono::seconds(60));
  const std::string text_after = scrape(*metrics_port);
  const ApiCounts api_after = api_counts(p);
  const double burst_reconciles = burst_done - reconciles_before;
  const double mean_reconcile =
      (metric(text_after, "controller_runtime_reconcile_time_seconds_sum") - time_sum_before) / burst_reconciles;
  const double per_second = burst_reconciles / burst_seconds;
  const double requests = (api_after.reads - api_before.reads) + (api_after.writes - api_before.writes);
  std::printf(
      "burst: %.0f reconciles in %.2f s = %.0f/s (mean reconcile %.2f ms); %.0f API requests (%.0f writes) = %.2f per "
      "reconcile\n",
      burst_reconciles, burst_seconds, per_second, mean_reconcile * 1000, requests,
      api_after.writes - api_before.writes, requests / burst_reconciles);

  const double rss = resident_mb(op.pid());
  std::printf("memory: %.1f MB resident (%.1f MB per 1,000 projects)\n", rss, rss * 1000 / projects);

  // Idle.
  const ApiCounts idle_before = api_counts(p);
  const double cpu_before = cpu_seconds(op.pid());
  const double idle_reconciles_before = metric(scrape(*metrics_port), "controller_runtime_reconcile_total");
  std::this_thread::sleep_for(std::chrono::seconds(quiet));
  const double idle_cpu = cpu_seconds(op.pid()) - cpu_before;
  const double idle_reconciles =
      metric(scrape(*metrics_port), "controller_runtime_reconcile_total") - idle_reconciles_before;
  const ApiCounts idle_after = api_counts(p);
  std::printf(
      "idle %d s: %.2f CPU seconds (%.2f%% of a core), %.0f reconciles, %.0f writes, %.0f Lease renewals, "
      "%.0f reads\n",
      quiet, idle_cpu, idle_cpu * 100 / quiet, idle_reconciles, idle_after.writes - idle_before.writes,
      idle_after.lease_writes - idle_before.lease_writes, idle_after.reads - idle_before.reads);

  std::printf("\ntargets:\n");
  std::printf("  reconciles per second   %8.0f  (target >= 100: %.1fx)\n", per_second, per_second / 100);
  std::printf("  resident per 1,000      %8.1f MB (target <= 50 MB: %.2fx of it)\n", rss * 1000 / projects,
              rss * 1000 / projects / 50);
  std::printf("  idle reconciles/writes  %8.0f / %.0f (target 0)\n", idle_reconciles,
              idle_after.writes - idle_before.writes);
  op.stop();
  return 0;
}
