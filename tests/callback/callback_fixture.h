#pragma once
// The callback suite's parts: a private PostgreSQL server for the state store (one per
// process, a database per test), the controller's callback server in this process on a
// free loopback port with a map of runs and a log of phases, and `ods pod` as a child
// process on a copy of examples/shop (DuckDB).
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "harness/dbt_project.h"
#include "ods/callback/callback_server.h"
#include "ods/contracts/state_store.h"

namespace ods::testing {

inline const std::string kControllerKey = "test-controller-key-0123456789";

// A new empty database on the suite's PostgreSQL server; its libpq connection string.
// Fails the test (and returns "") when the server cannot start.
std::string fresh_state_database();
// The PostgreSQL state store on a fresh_state_database(); fails the test and returns nullptr when
// it cannot be made or opened.
std::unique_ptr<contracts::StateStore> fresh_postgres_store();

// DbtRun stand-ins: "<namespace>/<name>" -> RunInfo. Thread-safe.
class TestRuns final : public callback::RunLookup {
 public:
  // Adds run `ns/name` of `project` (target `target`, "": the profile's; scope shop/default by
  // default) with `uid`.
  void add(const std::string& ns, const std::string& name, const std::string& uid, const std::string& target = "",
           const std::string& project = "shop");
  Result<std::optional<callback::RunInfo>> find(const std::string& ns, const std::string& name) override;

 private:
  std::mutex mutex_;
  std::map<std::string, callback::RunInfo> runs_;
};

// Every phase told, in order. Thread-safe.
class PhaseLog final : public callback::RunListener {
 public:
  void on_phase(callback::RunPhase phase, const callback::RunSummary& summary) override;
  std::vector<std::pair<std::string, callback::RunSummary>> phases();

 private:
  std::mutex mutex_;
  std::vector<std::pair<std::string, callback::RunSummary>> phases_;
};

// A callback server on 127.0.0.1: on `port` (0: a free one, retried when lost to a race).
// Fails the test and returns nullptr when it cannot listen.
// `on_refused` is told each refused request (CallbackServerOptions::on_refused); `body_deadline`
// is CallbackServerOptions::body_deadline.
std::unique_ptr<callback::CallbackServer> start_test_server(
    TestRuns& runs, PhaseLog& log, contracts::StateStore& store, int port = 0, std::size_t max_body_bytes = 64u << 20,
    std::function<void(const callback::RefusedRequest&)> on_refused = {},
    std::chrono::milliseconds body_deadline = callback::kDefaultBodyDeadline);

// The port of a server's url ("http://127.0.0.1:PORT").
int port_of(const callback::CallbackServer& server);

// A copy of examples/shop with its data loaded and dim_customers' pre-hook (which reads the
// run context, so it always builds) removed: a run with nothing changed builds nothing.
std::unique_ptr<DbtProject> shop_project();

// Writes the token of run `ns/name` (uid) into a file in `p` and returns the `ods pod` argv
// (without the program) for it.
std::vector<std::string> pod_args(const DbtProject& p, const callback::CallbackServer& server, const std::string& ns,
                                  const std::string& name, const std::string& uid);

// `ods pod` for run `ns/name` against `server`, waited for.
ProcessResult run_pod(const DbtProject& p, const callback::CallbackServer& server, const std::string& ns,
                      const std::string& name, const std::string& uid, const std::vector<std::string>& extra = {});

// POST `body` with `token` to <server>/v1/runs/<run>/<step>: {status, body}.
std::pair<int, std::string> post(const callback::CallbackServer& server, const std::string& run,
                                 const std::string& step, const std::string& token, const std::string& body);

// The ledger entries of `scope` with outcome other than "planned", by run id.
std::map<std::string, contracts::RunRecord> recorded_runs(contracts::StateStore& store,
                                                          const std::string& scope = "shop/default");

// How many snapshots of `scope` run `run_id` committed.
std::size_t commits_of(contracts::StateStore& store, const std::string& run_id,
                       const std::string& scope = "shop/default");

}  // namespace ods::testing
