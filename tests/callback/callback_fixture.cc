#include "callback_fixture.h"

#include <cpprest/http_client.h>
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "harness/loopback_port.h"
#include "harness/postgres_server.h"
#include "ods/planner/planner.h"
#include "ods/state/stores.h"

namespace ods::testing {

namespace {

PostgresServer* suite_postgres() {
  static std::unique_ptr<PostgresServer> server;
  static std::string failure;
  if (!server && failure.empty()) {
    auto started = PostgresServer::start();
    if (started)
      server = std::move(*started);
    else
      failure = started.error();
  }
  if (!server) ADD_FAILURE() << "the test PostgreSQL server did not start: " << failure;
  return server.get();
}

}  // namespace

std::string fresh_state_database() {
  PostgresServer* pg = suite_postgres();
  if (!pg) return "";
  static int next = 0;
  const std::string name = "callback_" + std::to_string(++next);
  ProcessResult created = pg->psql("create database " + name);
  EXPECT_EQ(created.exit_code, 0) << created.errors;
  return "host=127.0.0.1 port=" + std::to_string(pg->port()) + " user=" + pg->user() + " dbname=" + name;
}

std::unique_ptr<contracts::StateStore> fresh_postgres_store() {
  const std::string dsn = fresh_state_database();
  if (dsn.empty()) return nullptr;
  auto opened = state::open_postgres_store(dsn);
  EXPECT_TRUE(opened) << opened.error().message;
  return opened ? std::move(*opened) : nullptr;
}

void TestRuns::add(const std::string& ns, const std::string& name, const std::string& uid, const std::string& target,
                   const std::string& project) {
  std::lock_guard lock(mutex_);
  runs_[ns + "/" + name] = callback::RunInfo{uid, project, target, planner::scope_of(project, target)};
}

Result<std::optional<callback::RunInfo>> TestRuns::find(const std::string& ns, const std::string& name) {
  std::lock_guard lock(mutex_);
  auto it = runs_.find(ns + "/" + name);
  if (it == runs_.end()) return std::optional<callback::RunInfo>{};
  return std::optional<callback::RunInfo>{it->second};
}

void PhaseLog::on_phase(callback::RunPhase phase, const callback::RunSummary& summary) {
  std::lock_guard lock(mutex_);
  phases_.emplace_back(callback::to_string(phase), summary);
}

std::vector<std::pair<std::string, callback::RunSummary>> PhaseLog::phases() {
  std::lock_guard lock(mutex_);
  return phases_;
}

std::unique_ptr<callback::CallbackServer> start_test_server(
    TestRuns& runs, PhaseLog& log, contracts::StateStore& store, int port, std::size_t max_body_bytes,
    std::function<void(const callback::RefusedRequest&)> on_refused, std::chrono::milliseconds body_deadline) {
  std::string last_error;
  // A free port: another one when a race for it was lost. A fixed port (a restart on the
  // port pods know): wait while the kernel still holds it for the closed server's connections.
  const int attempts = port == 0 ? 5 : 120;
  for (int attempt = 0; attempt < attempts; ++attempt) {
    int p = port;
    if (p == 0) {
      auto free = free_loopback_port();
      if (!free) {
        last_error = free.error();
        continue;
      }
      p = *free;
    }
    callback::CallbackServerOptions options{"127.0.0.1", p, max_body_bytes, on_refused, body_deadline};
    auto server = callback::start_callback_server(
        options, callback::CallbackDeps{*callback::RunTokens::from_key(kControllerKey), runs, log, store});
    if (server) return std::move(*server);
    last_error = server.error().message;
    if (port != 0) std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  ADD_FAILURE() << "the callback server did not start: " << last_error;
  return nullptr;
}

int port_of(const callback::CallbackServer& server) {
  const std::string url = server.url();
  return std::stoi(url.substr(url.rfind(':') + 1));
}

std::unique_ptr<DbtProject> shop_project() {
  auto p = std::make_unique<DbtProject>("shop");
  p->replace_in("models/marts/_marts.yml",
                "      pre_hook: \"select '{{ env_var(\\\"SHOP_AUDIT_TAG\\\", \\\"none\\\") }}' as audit_tag\"\n",
                "      tags: [no_audit_hook]\n");
  ProcessResult loaded = p->generate_data();
  EXPECT_EQ(loaded.exit_code, 0) << loaded.output << loaded.errors;
  return p;
}

std::vector<std::string> pod_args(const DbtProject& p, const callback::CallbackServer& server, const std::string& ns,
                                  const std::string& name, const std::string& uid) {
  const auto token_file = p.dir() / ("token-" + name);
  std::ofstream(token_file) << callback::RunTokens::from_key(kControllerKey)->token_for(ns, name, uid) << "\n";
  return {"pod",
          "--callback",
          server.url(),
          "--run",
          ns + "/" + name,
          "--token-file",
          token_file.string(),
          "--profiles-dir",
          p.dir().string(),
          "--retry-for",
          "120",
          "--dbt",
          (venv_bin() / "dbt").string()};
}

ProcessResult run_pod(const DbtProject& p, const callback::CallbackServer& server, const std::string& ns,
                      const std::string& name, const std::string& uid, const std::vector<std::string>& extra) {
  std::vector<std::string> args = pod_args(p, server, ns, name, uid);
  args.insert(args.end(), extra.begin(), extra.end());
  return p.ods(args);
}

std::pair<int, std::string> post(const callback::CallbackServer& server, const std::string& run,
                                 const std::string& step, const std::string& token, const std::string& body) {
  web::http::client::http_client client(server.url());
  web::http::http_request request(web::http::methods::POST);
  request.set_request_uri("/v1/runs/" + run + "/" + step);
  request.headers().add("Authorization", "Bearer " + token);
  request.set_body(body, "application/json");
  auto response = client.request(request).get();
  return {response.status_code(), response.extract_string(true).get()};
}

std::map<std::string, contracts::RunRecord> recorded_runs(contracts::StateStore& store, const std::string& scope) {
  std::map<std::string, contracts::RunRecord> out;
  auto runs = store.runs(scope, 0);
  EXPECT_TRUE(runs) << runs.error().message;
  if (!runs) return out;
  for (auto& r : *runs) {
    if (r.outcome == "planned") continue;
    EXPECT_FALSE(out.contains(r.run_id)) << "run " << r.run_id << " recorded twice";
    out[r.run_id] = r;
  }
  return out;
}

std::size_t commits_of(contracts::StateStore& store, const std::string& run_id, const std::string& scope) {
  auto history = store.history(scope, 0);
  EXPECT_TRUE(history) << history.error().message;
  std::size_t n = 0;
  if (history)
    for (const auto& s : *history) n += s.run_id == run_id;
  return n;
}

}  // namespace ods::testing
