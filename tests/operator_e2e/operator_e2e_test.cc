// ods-operator end to end (docs/kubernetes.md): a real kube-apiserver and etcd, a real
// PostgreSQL state store, real dbt on a copy of examples/shop (DuckDB), runner Jobs run by the
// kubelet stand-in as local `ods pod` processes, the operator as separate processes. One world
// per process; the tests run in order and each leaves it usable for the next.
#include <gtest/gtest.h>

#include <csignal>
#include <regex>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

#include "dashboard_check.h"
#include "harness/loopback_port.h"
#include "harness/prometheus_server.h"
#include "harness/secret_search.h"
#include "operator_world.h"

namespace ods::testing {
namespace {

using kube::Json;
using namespace std::chrono_literals;

// The row of node `name` in the plan table a pod printed (cli/src/shared/plan_format: a "BUILD (n)"
// or "REUSE (n)" header, then "  <type> <name> <reason code> <sentence>" rows): its section and
// reason code, both empty when the table has no such row.
std::pair<std::string, std::string> plan_row(const std::string& log, const std::string& name) {
  std::istringstream lines(log);
  std::string line, section;
  while (std::getline(lines, line)) {
    if (line.rfind("BUILD (", 0) == 0) section = "BUILD";
    if (line.rfind("REUSE (", 0) == 0) section = "REUSE";
    std::istringstream words(line);
    std::string type, node, code;
    if (line.rfind("  ", 0) == 0 && (words >> type >> node >> code) && node == name) return {section, code};
  }
  return {"", ""};
}

class OperatorE2E : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto started = OperatorWorld::start();
    if (!started) {
      start_error_ = started.error();
      return;
    }
    world_ = std::move(*started);
  }
  static void TearDownTestSuite() { world_.reset(); }
  void SetUp() override { ASSERT_TRUE(world_) << start_error_; }
  // Each test starts the replicas it needs: none is left leading into the next test.
  void TearDown() override {
    if (!world_) return;
    if (HasFailure()) std::cerr << world_->diagnostics();
    world_->stop_all_operators();
  }

  static OperatorWorld& w() { return *world_; }

  // Creates a manual run and waits for its end; fails the test unless it Succeeded.
  static Json run_to_success(const std::string& name, const std::string& project = "shop") {
    auto created = w().create_run(name, project);
    EXPECT_TRUE(created) << created.error();
    auto finished = w().wait_finished(name);
    EXPECT_TRUE(finished) << "run " << name << " did not finish";
    if (!finished) return Json::object();
    EXPECT_EQ(phase_of(*finished), "Succeeded") << finished->dump(2);
    return *finished;
  }
  static void ensure_replica(const std::string& identity) {
    if (w().has_replica(identity)) return;
    auto started = w().start_operator(identity);
    ASSERT_TRUE(started) << started.error();
  }
  static int plan_count(const Json& run, const char* what) { return run["status"]["plan"].value(what, -1); }

  // Rows in the state store's ledger and snapshots recorded as the run `uid`.
  static std::pair<int, int> recorded(const std::string& uid) {
    auto runs = w().postgres().psql("select count(*) from runs where run_id = '" + uid + "'");
    auto snaps = w().postgres().psql("select count(*) from snapshots where run_id = '" + uid + "'");
    return {std::atoi(runs.output.c_str()), std::atoi(snaps.output.c_str())};
  }

  static std::string scrape(const OperatorReplica& replica) {
    auto got = loopback_http_get(replica.metrics_port, "/metrics");
    return got ? *got : "";
  }

  static std::expected<std::unique_ptr<PrometheusServer>, std::string> start_prometheus(const OperatorReplica& r) {
    PrometheusServer::Options options;
    options.target_ports = {r.metrics_port};
    auto started = PrometheusServer::start(options);
    if (!started) return started;
    // Scraping before the project exists: its counters start at 0 in Prometheus.
    if (!last_scrape(**started, "up", 1)) return std::unexpected("Prometheus never scraped the operator");
    return started;
  }
  // Polls until `expr` is `value` in Prometheus; the time of the last scrape then, Unix seconds.
  static std::optional<double> last_scrape(const PrometheusServer& prometheus, const std::string& expr, double value) {
    for (int i = 0; i < 300; ++i) {
      auto now = prometheus.query(expr, unix_now());
      if (now && !(*now)["result"].empty() && std::stod((*now)["result"][0]["value"][1].get<std::string>()) == value) {
        auto at = prometheus.query("timestamp(up)", unix_now());
        if (at && !(*at)["result"].empty()) return std::stod((*at)["result"][0]["value"][1].get<std::string>());
      }
      std::this_thread::sleep_for(200ms);
    }
    return std::nullopt;
  }
  static double unix_now() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  }

  static inline std::unique_ptr<OperatorWorld> world_;
  static inline std::string start_error_;
};

// The value of one sample line of the Prometheus text ("name{labels} value"), -1 when absent.
double sample(const std::string& text, const std::string& series) {
  const auto at = text.find("\n" + series + " ");
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + series.size() + 2));
}

TEST_F(OperatorE2E, AppliedProjectIsBuiltThenReusedThenOnlyNewDataIsRebuilt) {
  auto a = w().start_operator("replica-a");
  ASSERT_TRUE(a) << a.error();
  // A real Prometheus scrapes replica-a every second from before the first run; at the end the
  // dashboard's queries are checked against these runs (dashboard_check.h).
  auto prometheus = start_prometheus(**a);
  ASSERT_TRUE(prometheus) << prometheus.error();
  const double from = unix_now();
  ProcessResult applied = w().kubectl_apply(w().shop_project("shop", "0 6 * * *", /*with_digest_key=*/true));
  ASSERT_EQ(applied.exit_code, 0) << applied.output << applied.errors;

  // Applying the project starts its first run at once.
  std::string first_run;
  for (int i = 0; i < 300 && first_run.empty(); ++i) {
    auto runs = w().client().list(kube::resources::kDbtRuns, kAppNamespace, {"ods.dev/project=shop", ""});
    if (runs && !(*runs)["items"].empty()) first_run = (*runs)["items"][0]["metadata"]["name"];
    std::this_thread::sleep_for(200ms);
  }
  ASSERT_FALSE(first_run.empty()) << "no DbtRun was created for the applied project";
  auto first = w().wait_finished(first_run);
  ASSERT_TRUE(first) << "the first run did not finish";
  ASSERT_EQ(phase_of(*first), "Succeeded") << first->dump(2);
  const int total = plan_count(*first, "total");
  EXPECT_EQ(total, 9);  // the models, seed and snapshot of examples/shop
  EXPECT_EQ(plan_count(*first, "built"), total);
  EXPECT_EQ(plan_count(*first, "reused"), 0);
  EXPECT_EQ(recorded((*first)["metadata"]["uid"]), std::make_pair(1, 1));

  // The incremental model's steady state comes with the second run; the third reuses every
  // node, dim_customers too: its hook reads env_var, and the runner pod, given the digest key
  // from spec.digestKeySecretRef, fingerprints what it reads with a keyed digest (issue #14).
  Json second = run_to_success("shop-2");
  Json third = run_to_success("shop-3");
  EXPECT_EQ(plan_count(third, "built"), 0) << third.dump(2);
  EXPECT_EQ(plan_count(third, "reused"), total);
  EXPECT_EQ(plan_row(w().pod_log("shop-3"), "dim_customers"),
            std::make_pair(std::string("REUSE"), std::string("unchanged")))
      << w().pod_log("shop-3");
  // The key reached the pods only: not the runs, the operator's logs or the state database.
  std::string held = w().diagnostics() + third.dump() + w().pod_log("shop-3");
  held += w().postgres()
              .psql(
                  "select string_agg(query_to_xml(format('select * from %I.%I', table_schema, table_name), true, "
                  "false, '')::text, ' ') from information_schema.tables where table_schema not in "
                  "('pg_catalog', 'information_schema')")
              .output;
  EXPECT_NE(held.find("dim_customers"), std::string::npos);  // what was searched holds the runs
  EXPECT_EQ(held.find(kShopDigestKey), std::string::npos);

  // New orders: their readers build, the rest is reused.
  ProcessResult appended = w().project().generate_data({"--append-orders", "5"});
  ASSERT_EQ(appended.exit_code, 0) << appended.output << appended.errors;
  Json fourth = run_to_success("shop-4");
  const int rebuilt = plan_count(fourth, "built");
  EXPECT_GT(rebuilt, 1);
  EXPECT_LT(rebuilt, total);
  EXPECT_EQ(plan_count(fourth, "reused"), total - rebuilt);
  const std::string plan = w().pod_log("shop-4");  // the plan table the pod printed
  for (const char* reader : {"stg_orders", "stg_payments", "orders_daily", "fct_orders"}) {
    EXPECT_EQ(plan_row(plan, reader), std::make_pair(std::string("BUILD"), std::string("new_upstream_data")))
        << reader << plan;
  }
  for (const char* other : {"stg_customers", "country_codes", "customers_snapshot"}) {
    EXPECT_EQ(plan_row(plan, other), std::make_pair(std::string("REUSE"), std::string("unchanged"))) << other << plan;
  }

  // The project's printer columns show the last run.
  auto project = w().wait_for(kube::resources::kDbtProjects, {kAppNamespace, "shop"}, [&](const Json& p) {
    return p.contains("status") && p["status"].contains("lastRun") &&
           p["status"]["lastRun"].value("built", -1) == rebuilt;
  });
  ASSERT_TRUE(project) << "the project's status did not show the last run";
  ProcessResult table = w().plane().kubectl({"get", "dbtprojects", "-n", kAppNamespace});
  ASSERT_EQ(table.exit_code, 0) << table.errors;
  const int percent = (total - rebuilt) * 100 / total;
  EXPECT_TRUE(std::regex_search(
      table.output, std::regex("shop +True +\\S+ +" + std::to_string(rebuilt) + " +" + std::to_string(total - rebuilt) +
                               " +" + std::to_string(percent) + " ")))
      << table.output;

  // /metrics: one probe latency observation per source and run, the nodes built and reused.
  const std::string metrics = scrape(**a);
  EXPECT_EQ(
      sample(metrics, "ods_probe_latency_seconds_count{project=\"analytics/shop\",source=\"source.shop.raw.orders\"}"),
      4)
      << metrics;
  EXPECT_EQ(sample(metrics, "ods_runs_total{outcome=\"succeeded\",project=\"analytics/shop\"}"), 4) << metrics;
  EXPECT_EQ(sample(metrics, "ods_nodes_total{action=\"build\",project=\"analytics/shop\",reason=\"never_built\"}"),
            total)
      << metrics;
  EXPECT_EQ(sample(metrics, "ods_nodes_total{action=\"reuse\",project=\"analytics/shop\",reason=\"unchanged\"}"),
            plan_count(second, "reused") + plan_count(third, "reused") + plan_count(fourth, "reused"))
      << metrics;

  // Time saved: the reused nodes' last recorded build times, as the ledger recorded them.
  const double saved =
      std::stod(w().postgres()
                    .psql("select coalesce(sum((details::json->'summary'->>'seconds_saved')::float8), 0) from runs "
                          "where outcome <> 'planned'")
                    .output);
  EXPECT_GT(saved, 0);
  EXPECT_NEAR(sample(metrics, "ods_build_seconds_saved_total{project=\"analytics/shop\"}"), saved, 1e-6 + saved * 1e-9);
  EXPECT_GT(sample(metrics, "ods_build_seconds_total{project=\"analytics/shop\"}"), 0) << metrics;

  // The dashboard, as Grafana draws it over this test, shows these runs.
  auto to = last_scrape(**prometheus, "sum(ods_runs_total{outcome=\"succeeded\"})", 4);
  ASSERT_TRUE(to) << "Prometheus did not scrape the last run: " << (*prometheus)->log_tail();
  expect_dashboard_shows_the_runs(**prometheus, GrafanaTimeRange{from, *to, 1},
                                  {"analytics/shop", static_cast<double>(total - rebuilt) / total, saved, metrics});
}

TEST_F(OperatorE2E, ARunnerPodThatFailsFailsItsRunAndTheStateStaysAsItWas) {
  ensure_replica("replica-a");
  Json broken = w().shop_project("shop-broken");
  broken["spec"]["target"] = "no_such_target";  // dbt compile fails in the pod
  ProcessResult applied = w().kubectl_apply(broken);
  ASSERT_EQ(applied.exit_code, 0) << applied.errors;
  auto snapshots_before = w().postgres().psql("select count(*) from snapshots");
  ASSERT_TRUE(w().create_run("broken-1", "shop-broken"));
  auto finished = w().wait_finished("broken-1");
  ASSERT_TRUE(finished) << "the run did not finish";
  EXPECT_EQ(phase_of(*finished), "Failed");
  EXPECT_EQ((*finished)["status"].value("reason", ""), "BackoffLimitExceeded") << finished->dump(2);
  EXPECT_EQ(w().postgres().psql("select count(*) from snapshots").output, snapshots_before.output);
}

// A replica killed in the middle of a run (replaced, the run recorded once) is
// OperatorKilledMidRun's (operator_killed_test.cc: random kills in each phase, on this world).

TEST_F(OperatorE2E, OfTwoReplicasOnlyTheLeaderActsAndTheOtherTakesOverWhenItDies) {
  // The operator's default Lease timings (the chart's): with the suite's short ones (renew deadline 3 s), a loaded CI
  // machine can let the Lease change hands during the run, and the one that loses it exits.
  const LeaseTimings chart{"15s", "10s", "2s"};
  auto c = w().start_operator("replica-c", {}, chart);
  ASSERT_TRUE(c) << c.error();
  auto d = w().start_operator("replica-d", {}, chart);
  ASSERT_TRUE(d) << d.error();
  auto holder_of = [](const Json& lease) { return lease["spec"].value("holderIdentity", ""); };
  auto lease = w().wait_for(kube::resources::kLeases, {kOperatorNamespace, "ods-operator"},
                            [&](const Json& l) { return holder_of(l) == "replica-c" || holder_of(l) == "replica-d"; });
  ASSERT_TRUE(lease);
  const std::string leader = holder_of(*lease);
  const std::string follower = leader == "replica-c" ? "replica-d" : "replica-c";
  // Ready means healthy, leader or not: with 2 replicas and maxUnavailable 0 a rollout waits for
  // the follower to be ready (issue 25: /readyz passed on the leader only, and `helm install --wait`
  // never finished).
  EXPECT_TRUE(w().wait_ready(leader)) << "the leader is not ready";
  EXPECT_TRUE(w().wait_ready(follower)) << "the follower is not ready";
  // The Service may send a pod's callback to the follower: it answers 503 not_leader (the pod retries).
  auto at_follower =
      w().post_callback("/v1/runs/analytics/nobody/inputs", "t", "{}", w().replica(follower).callback_port);
  EXPECT_EQ(at_follower.first, 503) << at_follower.second;
  EXPECT_NE(at_follower.second.find("\"not_leader\""), std::string::npos) << at_follower.second;
  // The runs' callbacks go through the Service stand-in, spread over both replicas.
  run_to_success("shop-leader-1");
  EXPECT_EQ(sample(scrape(w().replica(leader)), "ods_leader"), 1);
  EXPECT_EQ(sample(scrape(w().replica(follower)), "ods_leader"), 0);
  EXPECT_EQ(w().replica(follower).process.log_tail(400).find("controllers started"), std::string::npos)
      << "the follower started its controllers";
  EXPECT_LE(sample(scrape(w().replica(follower)),
                   "controller_runtime_reconcile_total{controller=\"dbtrun\",result=\"success\"}"),
            0);

  ASSERT_TRUE(w().has_replica(follower)) << "the follower exited";
  w().kill_operator(leader);
  // The follower takes over once the Lease has expired (15 s after the last renewal it saw).
  auto taken = w().wait_for(
      kube::resources::kLeases, {kOperatorNamespace, "ods-operator"},
      [&](const Json& l) { return holder_of(l) == follower; }, std::chrono::seconds(60));
  ASSERT_TRUE(taken) << "the follower did not take the Lease over";
  run_to_success("shop-leader-2");
  w().stop_operator(follower);
}

// This replica runs as the chart's ServiceAccount, with exactly the chart's RBAC.
TEST_F(OperatorE2E, WithTheChartsRbacACallbackWithAnotherRunsTokenIsRefused) {
  auto account = w().chart_service_account_kubeconfig();
  ASSERT_TRUE(account) << account.error();
  auto e = w().start_operator("replica-e", *account);
  ASSERT_TRUE(e) << e.error();
  ASSERT_TRUE(w().wait_ready("replica-e")) << "replica-e did not become ready (leader)";
  ASSERT_TRUE(w().wait_ready("replica-e")) << "replica-e did not become ready (leader)";
  ASSERT_EQ(w().kubectl_apply(w().shop_project("shop")).exit_code, 0);
  // A whole run under the chart's RBAC.
  Json mine = run_to_success("token-a");
  ASSERT_FALSE(HasFailure());
  auto created = w().create_run("token-b", "shop");
  ASSERT_TRUE(created) << created.error();
  // token-a's token presented for token-b: refused, and token-b is not disturbed.
  const std::string token = w().run_token("token-a", mine["metadata"]["uid"]);
  auto answer = w().post_callback("/v1/runs/analytics/token-b/results", token, "{}");
  EXPECT_EQ(answer.first, 401) << answer.second;
  auto finished = w().wait_finished("token-b");
  ASSERT_TRUE(finished);
  EXPECT_EQ(phase_of(*finished), "Succeeded") << finished->dump(2);
  EXPECT_EQ(recorded((*finished)["metadata"]["uid"]), std::make_pair(1, 1));
}

// The API server restarts: every watch breaks, and the new server's watch cache starts at etcd's
// current revision, so the informers resume from a resourceVersion that is gone (410) and list
// again. A run created while the operator could not see it is still found and run once.
TEST_F(OperatorE2E, AWatchBrokenWith410RelistsAndMissesNothing) {
  // A Lease longer than the restart, so this replica keeps leading through it.
  auto f = w().start_operator("replica-f", {}, LeaseTimings{"60s", "45s", "2s"});
  ASSERT_TRUE(f) << f.error();
  ASSERT_TRUE(w().wait_ready("replica-f")) << "replica-f did not become ready (leader)";
  ASSERT_EQ(w().kubectl_apply(w().shop_project("shop")).exit_code, 0);
  // The operator is frozen while the run is created and the server restarts: it resumes its
  // watches from before the run, on a server whose watch cache starts after it.
  ::kill(w().replica("replica-f").process.pid(), SIGSTOP);
  auto created = w().create_run("relist-1", "shop");
  auto restarted = w().plane().restart_apiserver();
  ::kill(w().replica("replica-f").process.pid(), SIGCONT);
  ASSERT_TRUE(created) << created.error();
  ASSERT_TRUE(restarted) << restarted.error();
  auto finished = w().wait_finished("relist-1");
  ASSERT_TRUE(finished) << "the run created around the restart did not finish";
  EXPECT_EQ(phase_of(*finished), "Succeeded") << finished->dump(2);
  EXPECT_EQ(recorded((*finished)["metadata"]["uid"]), std::make_pair(1, 1));
  double relists = -1;
  for (int i = 0; i < 50 && relists < 1; ++i) {
    relists = sample(scrape(w().replica("replica-f")), "ods_informer_relists_total{resource=\"dbtruns\"}");
    std::this_thread::sleep_for(200ms);
  }
  EXPECT_GE(relists, 1) << scrape(w().replica("replica-f"));
  w().stop_operator("replica-f");
}

// Secrets never leak (the operator's part of issue #16). After a run of a project with the digest
// key, and a callback that presents the callback key itself as its token, every form of each of
// the world's secrets (harness/secret_search.h) is searched for in: every replica's log, every
// runner pod's log and files (but the Secret volumes mounted into it), the project's files, every
// DbtProject and DbtRun (statuses included), Job, Pod, Event, ConfigMap and Lease, and every row
// (the run ledger, the snapshots, the plans) and the log of the state server. This test runs last
// and so also searches what every earlier test left behind.
TEST_F(OperatorE2E, NoSecretReachesALogAStatusAnEventAConfigMapOrAStateRow) {
  ensure_replica("replica-s");
  ASSERT_TRUE(w().wait_ready("replica-s")) << "replica-s did not become ready (leader)";
  ASSERT_EQ(w().kubectl_apply(w().shop_project("shop", "0 6 * * *", /*with_digest_key=*/true)).exit_code, 0);
  Json run = run_to_success("secrets-1");
  ASSERT_FALSE(HasFailure());
  auto refused = w().post_callback("/v1/runs/analytics/secrets-1/results", kCallbackKey, "{}");
  EXPECT_EQ(refused.first, 401) << refused.second;
  w().stop_operator("replica-s");  // its log is complete

  SecretSearch search({{"state password", kStatePassword},
                       {"callback key", kCallbackKey},
                       {"warehouse password", kWarehousePassword},
                       {"digest key", kShopDigestKey}});
  ProcessResult objects = w().plane().kubectl(
      {"get", "dbtprojects,dbtruns,jobs,pods,events,events.events.k8s.io,configmaps,leases", "-A", "-o", "json"});
  ASSERT_EQ(objects.exit_code, 0) << objects.errors;
  const Json listed = Json::parse(objects.output, nullptr, false);
  ASSERT_FALSE(listed.is_discarded()) << objects.output.substr(0, 500);
  std::set<std::string> secret_volumes;  // what the Jobs mount from Secrets: the files that hold them
  std::map<std::string, int> kinds;
  for (const auto& item : listed["items"]) {
    const std::string kind = item.value("kind", "");
    ++kinds[kind];
    search.expect_clean(kind + " " + item["metadata"].value("namespace", "") + "/" + item["metadata"].value("name", ""),
                        item.dump());
    if (kind == "Job") {
      for (const auto& volume : item["spec"]["template"]["spec"].value("volumes", Json::array()))
        if (volume.contains("secret")) secret_volumes.insert(volume.value("name", ""));
    }
  }
  for (const char* kind : {"DbtProject", "DbtRun", "Job", "Event", "Lease"})
    EXPECT_GT(kinds[kind], 0) << "no " << kind << " was listed: " << Json(kinds).dump();
  EXPECT_FALSE(secret_volumes.empty()) << "the Jobs mount no Secret (the profile)";

  std::size_t replica_logs = 0;
  for (const auto& e : std::filesystem::directory_iterator(w().plane().dir())) {
    if (!e.path().filename().string().starts_with("operator-")) continue;
    search.expect_clean("replica log " + e.path().filename().string(), read_text_file(e.path()));
    ++replica_logs;
  }
  EXPECT_GT(replica_logs, 0u);
  const std::size_t pod_files = search.expect_clean_tree(w().plane().dir() / "pods", [&](const auto& path) {
    for (auto part = path.begin(); part != path.end(); ++part)
      if (*part == "volumes" && std::next(part) != path.end() && secret_volumes.contains(std::next(part)->string()))
        return true;
    return false;
  });
  EXPECT_GT(pod_files, 0u);
  const std::size_t project_files = search.expect_clean_tree(w().project().dir());
  ProcessResult rows = w().postgres().dump_all_rows();
  ASSERT_EQ(rows.exit_code, 0) << rows.errors;
  EXPECT_NE(rows.output.find(run["metadata"]["uid"].get<std::string>()), std::string::npos)
      << "the run is not in the state server's ledger";
  search.expect_clean("the state server's rows", rows.output);
  search.expect_clean("the state server's log", read_text_file(w().postgres().dir() / "server.log"));
  std::cout << "secrets (operator): " << listed["items"].size() << " objects, " << replica_logs << " replica logs, "
            << pod_files << " pod files, " << project_files
            << " project files, the state rows: " << search.texts_searched() << " texts, " << search.bytes_searched()
            << " bytes searched for " << search.forms() << " forms of 4 secrets" << std::endl;
}

// Early cutoff through the operator is proven in parts: the waves through the callback protocol
// with $ODS_CUTOFF and the summary the status shows by PodWaves (tests/callback, tier 1), the
// runnerPodTemplate env reaching the Job by RunReconciler's unit tests, the summary as the
// DbtRun's status by run_phase_writer_test; the real operator's wave endpoint under kills by
// OperatorKilledMidRun (its runs go in waves where the default `auto` draws them).

}  // namespace
}  // namespace ods::testing
