// `ods pod` against the callback server: real dbt on a copy of examples/shop (DuckDB), the
// state in a real PostgreSQL, the server in this process, the pod a child process.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "callback_fixture.h"
#include "harness/background_process.h"
#include "harness/eventually.h"
#include "harness/temp_dir.h"
#include "ods/callback/protocol.h"
#include "ods/planner/json_io.h"

namespace ods::testing {
namespace {

using nlohmann::json;

class PodCallback : public ::testing::Test {
 protected:
  void SetUp() override {
    store = fresh_postgres_store();
    ASSERT_NE(store, nullptr);
    server = start_test_server(runs, log, *store);
    ASSERT_NE(server, nullptr);
  }

  // The phase names told for run uid `uid`, in order.
  std::vector<std::string> phases_of(const std::string& uid) {
    std::vector<std::string> out;
    for (const auto& [phase, summary] : log.phases())
      if (summary.run_uid == uid) out.push_back(phase);
    return out;
  }
  callback::RunSummary last_summary_of(const std::string& uid) {
    callback::RunSummary last;
    for (const auto& [phase, summary] : log.phases())
      if (summary.run_uid == uid) last = summary;
    return last;
  }
  // The head snapshot's record of node `id`.
  planner::NodeState head_node(const std::string& id) {
    auto latest = store->latest("shop/default");
    EXPECT_TRUE(latest && *latest);
    auto snapshot = planner::snapshot_from_json((*latest)->document);
    EXPECT_TRUE(snapshot);
    return snapshot->nodes.at(id);
  }

  TestRuns runs;
  PhaseLog log;
  std::unique_ptr<contracts::StateStore> store;
  std::unique_ptr<callback::CallbackServer> server;
};

TEST_F(PodCallback, BuildsEverythingThenReusesEverythingThenBuildsTheReadersOfChangedData) {
  auto p = shop_project();
  runs.add("team", "run-1", "uid-1");
  ProcessResult first = run_pod(*p, *server, "team", "run-1", "uid-1");
  ASSERT_EQ(first.exit_code, 0) << first.output << first.errors;
  auto recorded = recorded_runs(*store);
  ASSERT_TRUE(recorded.contains("uid-1"));
  EXPECT_EQ(recorded["uid-1"].outcome, "success");
  const auto s1 = last_summary_of("uid-1");
  EXPECT_EQ(s1.planned_reuse, 0);
  EXPECT_EQ(s1.build_reasons.at("never_built"), s1.planned_build);
  EXPECT_EQ(s1.built, s1.planned_build);
  EXPECT_FALSE(s1.probe_seconds.empty());  // latency per source, for the metrics
  EXPECT_EQ(phases_of("uid-1"), (std::vector<std::string>{"Planning", "Building", "Recording", "Succeeded"}));

  // The incremental model's compiled SQL changes after its first build (docs/cli.md, known
  // limits): the second run builds it once more, and only it.
  runs.add("team", "run-2", "uid-2");
  ProcessResult second = run_pod(*p, *server, "team", "run-2", "uid-2");
  ASSERT_EQ(second.exit_code, 0) << second.output << second.errors;
  EXPECT_EQ(last_summary_of("uid-2").selection, std::vector<std::string>{"orders_daily"});

  runs.add("team", "run-3", "uid-3");
  ProcessResult third = run_pod(*p, *server, "team", "run-3", "uid-3");
  ASSERT_EQ(third.exit_code, 0) << third.output << third.errors;
  EXPECT_NE(third.output.find("dbt build not started"), std::string::npos) << third.output;
  EXPECT_EQ(third.output.find("ods: building"), std::string::npos) << third.output;
  EXPECT_EQ(recorded_runs(*store)["uid-3"].outcome, "reused");
  EXPECT_EQ(last_summary_of("uid-3").planned_reuse, s1.planned_build);
  EXPECT_EQ(last_summary_of("uid-3").reuse_reasons.at("unchanged"), s1.planned_build);
  EXPECT_EQ(store->history("shop/default", 0)->size(), 2u);  // nothing new to record

  ProcessResult appended = p->generate_data({"--append-orders", "5"});
  ASSERT_EQ(appended.exit_code, 0) << appended.errors;
  runs.add("team", "run-4", "uid-4");
  ProcessResult fourth = run_pod(*p, *server, "team", "run-4", "uid-4");
  ASSERT_EQ(fourth.exit_code, 0) << fourth.output << fourth.errors;
  const auto s4 = last_summary_of("uid-4");
  std::set<std::string> built(s4.selection.begin(), s4.selection.end());
  // raw.orders and raw.payments got rows: their readers build, nothing else does.
  for (const char* reader : {"stg_orders", "stg_payments", "orders_daily", "fct_orders"})
    EXPECT_TRUE(built.contains(reader)) << reader << " not in the selection of run 4";
  for (const char* other : {"stg_customers", "customers_snapshot", "country_codes"})
    EXPECT_FALSE(built.contains(other)) << other << " built though its data did not change";
  EXPECT_EQ(s4.build_reasons.count("never_built"), 0u);
  EXPECT_EQ(s4.built, s4.planned_build);
  EXPECT_EQ(head_node("model.shop.stg_orders").run_id, "uid-4");
  EXPECT_EQ(head_node("model.shop.stg_customers").run_id, "uid-1");
}

TEST_F(PodCallback, ExcludedNodesAreLeftOutOfTheSelection) {
  auto p = shop_project();
  runs.add("team", "run-x1", "uid-x1");
  ProcessResult first = run_pod(*p, *server, "team", "run-x1", "uid-x1");
  ASSERT_EQ(first.exit_code, 0) << first.output << first.errors;
  ProcessResult appended = p->generate_data({"--append-orders", "5"});
  ASSERT_EQ(appended.exit_code, 0) << appended.errors;
  // New orders and payments; the orders side is excluded, as a DbtProject's selection.exclude
  // reaches the pod ($ODS_EXCLUDE).
  runs.add("team", "run-x2", "uid-x2");
  ProcessResult r = run_pod(*p, *server, "team", "run-x2", "uid-x2", {"--exclude", "stg_orders+"});
  ASSERT_EQ(r.exit_code, 0) << r.output << r.errors;
  const auto s = last_summary_of("uid-x2");
  const std::set<std::string> built(s.selection.begin(), s.selection.end());
  for (const char* left_out : {"stg_orders", "orders_daily", "fct_orders"})
    EXPECT_FALSE(built.contains(left_out)) << left_out << " built though excluded";
  EXPECT_TRUE(built.contains("stg_payments")) << "stg_payments (new payments, not excluded) was not built";
  EXPECT_EQ(head_node("model.shop.stg_orders").run_id, "uid-x1");
}

TEST_F(PodCallback, AModelFailingInDbtFailsThePodAndKeepsItsLastState) {
  auto p = shop_project();
  runs.add("team", "good", "uid-good");
  ProcessResult good = run_pod(*p, *server, "team", "good", "uid-good");
  ASSERT_EQ(good.exit_code, 0) << good.output << good.errors;

  p->write("models/staging/stg_payments.sql", "select * from {{ source('raw', 'payments') }} where no_such_column\n");
  runs.add("team", "bad", "uid-bad");
  ProcessResult bad = run_pod(*p, *server, "team", "bad", "uid-bad");
  EXPECT_NE(bad.exit_code, 0) << bad.output << bad.errors;
  auto recorded = recorded_runs(*store);
  ASSERT_TRUE(recorded.contains("uid-bad"));
  EXPECT_NE(recorded["uid-bad"].outcome, "success");
  EXPECT_EQ(phases_of("uid-bad").back(), "Failed");
  EXPECT_EQ(head_node("model.shop.stg_payments").run_id, "uid-good");  // the failing node kept its state
}

// spec.policies.runTests: false ($ODS_RUN_TESTS; here its flag): dbt build runs no data or unit
// test, so a failing check gates nothing and fails nothing; nothing is recorded as tested, and a
// model with unit tests (stg_orders) is not built again only so they run (checks_not_passed).
TEST_F(PodCallback, WithoutTestsAFailingCheckGatesNothingAndNothingIsRecordedAsTested) {
  auto p = shop_project();
  p->write("tests/always_fails.sql", "select 1 as failure from {{ ref('stg_orders') }}\n");
  runs.add("team", "nt-1", "uid-nt-1");
  ProcessResult first = run_pod(*p, *server, "team", "nt-1", "uid-nt-1", {"--run-tests", "false"});
  ASSERT_EQ(first.exit_code, 0) << first.output << first.errors;
  EXPECT_NE(first.output.find("runTests is false"), std::string::npos) << first.output;
  EXPECT_EQ(recorded_runs(*store)["uid-nt-1"].outcome, "success");
  EXPECT_EQ(head_node("model.shop.fct_orders").run_id, "uid-nt-1");  // its reader built: no check gated it
  EXPECT_FALSE(head_node("model.shop.stg_orders").tested);

  runs.add("team", "nt-2", "uid-nt-2");
  ProcessResult second = run_pod(*p, *server, "team", "nt-2", "uid-nt-2", {"--run-tests", "false"});
  ASSERT_EQ(second.exit_code, 0) << second.output << second.errors;
  const auto s2 = last_summary_of("uid-nt-2");
  EXPECT_EQ(s2.selection, std::vector<std::string>{"orders_daily"});  // as with tests: see the first test
  EXPECT_EQ(s2.build_reasons.count("checks_not_passed"), 0u);

  // With tests again (runTests true, the default), the failing check runs and fails the pod.
  runs.add("team", "nt-3", "uid-nt-3");
  ProcessResult third = run_pod(*p, *server, "team", "nt-3", "uid-nt-3");
  EXPECT_NE(third.exit_code, 0) << third.output << third.errors;
}

// A project with packages (a git checkout has no dbt_packages): `ods pod` runs `dbt deps` before
// it compiles (issue 25: dbt compile refused such a project, "Run dbt deps"). The package here is
// local, so dbt deps needs no network; one of its macros is used by a model.
TEST_F(PodCallback, AProjectWithPackagesGetsThemInstalledBeforeItCompiles) {
  auto p = shop_project();
  TempDir cache("pod-packages-cache");
  p->add_env({"ODS_PACKAGES_CACHE=" + cache.path().string()});
  std::filesystem::create_directories(p->dir() / "helpers" / "macros");
  p->write("packages.yml", "packages:\n  - local: helpers\n");
  p->write("helpers/dbt_project.yml",
           "name: shop_helpers\nversion: '1.0.0'\nconfig-version: 2\nmacro-paths: [macros]\n");
  p->write("helpers/macros/forty_two.sql", "{% macro forty_two() %}42{% endmacro %}\n");
  p->write("models/marts/answer.sql", "select {{ shop_helpers.forty_two() }} as answer\n");
  runs.add("team", "deps-1", "uid-deps-1");
  ProcessResult first = run_pod(*p, *server, "team", "deps-1", "uid-deps-1");
  ASSERT_EQ(first.exit_code, 0) << first.output << first.errors;
  EXPECT_NE((first.output + first.errors).find("installing the packages packages.yml names (dbt deps"),
            std::string::npos)
      << first.output << first.errors;
  EXPECT_TRUE(std::filesystem::exists(p->dir() / "dbt_packages" / "shop_helpers" / "dbt_project.yml"));
  EXPECT_EQ(head_node("model.shop.answer").run_id, "uid-deps-1");
  // A local package is dbt deps' link into the project: its files are the checkout's, never cached.
  EXPECT_NE(first.output.find("packages not cached: dbt_packages/shop_helpers is a link"), std::string::npos)
      << first.output;
  // No packages entry (the run's kept parse has its own folder there, docs/kubernetes.md).
  for (const auto& entry : std::filesystem::directory_iterator(cache.path()))
    EXPECT_EQ(entry.path().filename(), "kept-parse") << "a packages entry was saved";
  // Installed once: the next run in the same folder leaves them (an image built with its packages).
  runs.add("team", "deps-2", "uid-deps-2");
  ProcessResult second = run_pod(*p, *server, "team", "deps-2", "uid-deps-2");
  ASSERT_EQ(second.exit_code, 0) << second.output << second.errors;
  EXPECT_EQ((second.output + second.errors).find("dbt deps"), std::string::npos) << second.output << second.errors;
}

// The packages cache ($ODS_PACKAGES_CACHE, issue 25) with a git package from a repository on this
// machine (dbt deps clones it; no network), the project's package-lock.yml committed as a team
// would: the first run installs with dbt deps and saves; the next fresh checkout restores the
// packages and runs no dbt deps; a changed lockfile misses and installs the new version; an
// entry damaged on disk is refused, installed again and saved over.
TEST_F(PodCallback, PackagesComeFromTheCacheKeyedByTheLockfile) {
  namespace fs = std::filesystem;
  TempDir repo("pod-packages-repo");
  TempDir cache("pod-packages-cache");
  const fs::path origin = repo.path() / "helpers";
  fs::create_directories(origin / "macros");
  std::ofstream(origin / "dbt_project.yml") << "name: shop_helpers\nversion: '1.0.0'\nconfig-version: 2\n";
  const std::string git = "git -c user.name=ods -c user.email=ods@localhost ";
  auto release = [&](const std::string& answer, const std::string& tag) {
    std::ofstream(origin / "macros" / "forty_two.sql") << "{% macro forty_two() %}" << answer << "{% endmacro %}\n";
    const std::string in = "cd '" + origin.string() + "' && ";
    return std::system((in + "(test -d .git || git init -q -b main) && " + git + "add -A && " + git + "commit -qm " +
                        tag + " && " + git + "tag " + tag)
                           .c_str());
  };
  ASSERT_EQ(release("42", "v1"), 0);
  ASSERT_EQ(release("43", "v2"), 0);
  auto p = shop_project();
  p->add_env({"ODS_PACKAGES_CACHE=" + cache.path().string()});
  // It reads a seed, so it is reused while its code and the seed are unchanged.
  p->write("models/marts/answer.sql",
           "select {{ shop_helpers.forty_two() }} as answer from {{ ref('country_codes') }} limit 1\n");
  // The developer's `dbt deps` writes package-lock.yml; the checkout has it, not dbt_packages.
  auto lock_to = [&](const std::string& tag) {
    p->write("packages.yml", "packages:\n  - git: \"file://" + origin.string() + "\"\n    revision: " + tag + "\n");
    ProcessResult deps = p->dbt({"deps"});
    fs::remove_all(p->dir() / "dbt_packages");
    return deps;
  };
  const fs::path macro = p->dir() / "dbt_packages" / "shop_helpers" / "macros" / "forty_two.sql";
  auto text_of = [](const fs::path& file) {
    std::ifstream in(file);
    return std::string((std::istreambuf_iterator<char>(in)), {});
  };
  // The key a run missed (and saved under), from its step line.
  auto missed_key = [](const std::string& output) {
    const std::string at = "not in the cache: ";
    const auto found = output.find(at);
    return found == std::string::npos ? std::string() : output.substr(found + at.size(), 64);
  };
  ProcessResult locked = lock_to("v1");
  ASSERT_EQ(locked.exit_code, 0) << locked.output << locked.errors;
  ASSERT_TRUE(fs::exists(p->dir() / "package-lock.yml"));

  runs.add("team", "cache-1", "uid-cache-1");
  ProcessResult first = run_pod(*p, *server, "team", "cache-1", "uid-cache-1");
  ASSERT_EQ(first.exit_code, 0) << first.output << first.errors;
  const std::string v1_key = missed_key(first.output);
  ASSERT_EQ(v1_key.size(), 64u) << first.output;
  EXPECT_NE(first.output.find("packages saved to cache " + v1_key), std::string::npos) << first.output;
  EXPECT_TRUE(fs::exists(cache.path() / v1_key / "entry.json"));
  EXPECT_EQ(head_node("model.shop.answer").run_id, "uid-cache-1");

  // The next run's fresh checkout: no dbt deps, the packages from the cache.
  fs::remove_all(p->dir() / "dbt_packages");
  runs.add("team", "cache-2", "uid-cache-2");
  ProcessResult second = run_pod(*p, *server, "team", "cache-2", "uid-cache-2");
  ASSERT_EQ(second.exit_code, 0) << second.output << second.errors;
  EXPECT_NE(second.output.find("packages restored from cache " + v1_key), std::string::npos) << second.output;
  EXPECT_EQ((second.output + second.errors).find("(dbt deps"), std::string::npos) << second.output << second.errors;
  EXPECT_EQ(text_of(macro), "{% macro forty_two() %}42{% endmacro %}\n");
  EXPECT_EQ(head_node("model.shop.answer").run_id, "uid-cache-1") << second.output;  // the same code: reused

  // The lockfile moves to v2: another key, dbt deps, the new macro, the model rebuilt.
  ProcessResult relocked = lock_to("v2");
  ASSERT_EQ(relocked.exit_code, 0) << relocked.output << relocked.errors;
  runs.add("team", "cache-3", "uid-cache-3");
  ProcessResult third = run_pod(*p, *server, "team", "cache-3", "uid-cache-3");
  ASSERT_EQ(third.exit_code, 0) << third.output << third.errors;
  const std::string v2_key = missed_key(third.output);
  ASSERT_EQ(v2_key.size(), 64u) << third.output;
  EXPECT_NE(v2_key, v1_key);
  EXPECT_NE(third.output.find("packages saved to cache " + v2_key), std::string::npos) << third.output;
  EXPECT_EQ(text_of(macro), "{% macro forty_two() %}43{% endmacro %}\n");
  EXPECT_EQ(head_node("model.shop.answer").run_id, "uid-cache-3");

  // The v2 entry damaged on disk: refused, installed again, saved over.
  const fs::path cached_macro = cache.path() / v2_key / "dbt_packages" / "shop_helpers" / "macros" / "forty_two.sql";
  std::ofstream(cached_macro) << "{% macro forty_two() %}666{% endmacro %}\n";
  fs::remove_all(p->dir() / "dbt_packages");
  runs.add("team", "cache-4", "uid-cache-4");
  ProcessResult fourth = run_pod(*p, *server, "team", "cache-4", "uid-cache-4");
  ASSERT_EQ(fourth.exit_code, 0) << fourth.output << fourth.errors;
  EXPECT_NE(fourth.errors.find("entry " + v2_key +
                               " is damaged (dbt_packages/shop_helpers/macros/forty_two.sql does "
                               "not match its digest); installing again"),
            std::string::npos)
      << fourth.errors;
  EXPECT_EQ(missed_key(fourth.output), v2_key) << fourth.output;
  EXPECT_NE(fourth.output.find("packages saved to cache " + v2_key), std::string::npos) << fourth.output;
  EXPECT_EQ(text_of(macro), "{% macro forty_two() %}43{% endmacro %}\n");
  EXPECT_EQ(text_of(cached_macro), "{% macro forty_two() %}43{% endmacro %}\n");
  EXPECT_EQ(head_node("model.shop.answer").run_id, "uid-cache-3");
}

TEST_F(PodCallback, AControllerRestartedBetweenInputsAndResultsRecordsTheRunOnce) {
  auto p = shop_project();
  runs.add("team", "restart", "uid-restart");
  const int port = port_of(*server);
  BackgroundProcess pod;
  auto args = pod_args(*p, *server, "team", "restart", "uid-restart");
  args.insert(args.begin(), ods_binary().string());
  args.insert(args.end(), {"--project-dir", p->dir().string()});
  // The pod starts while no controller listens (it retries), so it doesn't inherit the
  // listening socket of a server in this process (which would keep the port after a restart).
  server.reset();
  ASSERT_TRUE(pod.start(args, p->dir(), p->dir() / "pod.log"));
  server = start_test_server(runs, log, *store, port);
  ASSERT_NE(server, nullptr);
  // Wait until the pod has its plan, then the controller goes away with everything in memory.
  const bool planned = eventually(
      std::chrono::minutes(5),
      [&] {
        std::ifstream in(p->dir() / "pod.log");
        std::string text((std::istreambuf_iterator<char>(in)), {});
        return text.find("plan of run uid-restart") != std::string::npos || pod.exited();
      },
      std::chrono::milliseconds(250));
  ASSERT_TRUE(planned) << "no plan within 5 minutes: " << pod.log_tail();
  ASSERT_FALSE(pod.exited()) << pod.log_tail();
  server.reset();
  PhaseLog new_log;
  server = start_test_server(runs, new_log, *store, port);
  ASSERT_NE(server, nullptr);
  ASSERT_TRUE(eventually(
      std::chrono::minutes(5), [&] { return pod.exited(); }, std::chrono::milliseconds(250)))
      << "the pod did not finish within 5 minutes: " << pod.log_tail(60);
  EXPECT_EQ(pod.exit_description(), "exited with code 0") << pod.log_tail(60);
  auto recorded = recorded_runs(*store);
  ASSERT_TRUE(recorded.contains("uid-restart"));
  EXPECT_EQ(recorded["uid-restart"].outcome, "success");
  EXPECT_EQ(commits_of(*store, "uid-restart"), 1u);
  // The first controller planned the run, the restarted one recorded it.
  EXPECT_EQ(phases_of("uid-restart"), (std::vector<std::string>{"Planning", "Building"}));
  std::vector<std::string> after_restart;
  for (const auto& [phase, summary] : new_log.phases()) after_restart.push_back(phase);
  EXPECT_EQ(after_restart, (std::vector<std::string>{"Recording", "Succeeded"}));
}

TEST_F(PodCallback, RefusedRequestsChangeNothing) {
  runs.add("team", "mine", "uid-mine");
  runs.add("team", "theirs", "uid-theirs");
  auto tokens = callback::RunTokens::from_key(kControllerKey);
  callback::InputsRequest inputs;
  inputs.inputs.project = "shop";
  const std::string body = callback::to_json(inputs);

  auto [stolen, stolen_body] =
      post(*server, "team/mine", "inputs", tokens->token_for("team", "theirs", "uid-theirs"), body);
  EXPECT_EQ(stolen, 401) << stolen_body;
  auto [unknown, unknown_body] = post(*server, "team/nobody", "inputs", "x", body);
  EXPECT_EQ(unknown, 404) << unknown_body;
  json malformed = json::parse(body);
  malformed["timings"].erase("probe");
  auto [bad, bad_body] =
      post(*server, "team/mine", "inputs", tokens->token_for("team", "mine", "uid-mine"), malformed.dump());
  EXPECT_EQ(bad, 400);
  EXPECT_EQ(json::parse(bad_body)["error"]["field"], "timings.probe") << bad_body;
  callback::ResultsRequest results;
  results.inputs = inputs.inputs;
  auto [early, early_body] =
      post(*server, "team/mine", "results", tokens->token_for("team", "mine", "uid-mine"), callback::to_json(results));
  EXPECT_EQ(early, 409) << early_body;

  server.reset();
  server = start_test_server(runs, log, *store, 0, 1 << 20);
  ASSERT_NE(server, nullptr);
  std::string oversized = body;
  oversized.insert(oversized.size() - 1, ",\"padding\":\"" + std::string(2 << 20, 'x') + "\"");
  auto [large, large_body] =
      post(*server, "team/mine", "inputs", tokens->token_for("team", "mine", "uid-mine"), oversized);
  EXPECT_EQ(large, 413) << large_body;

  EXPECT_TRUE(store->runs("shop/default", 0)->empty());
  EXPECT_TRUE(log.phases().empty());
}

}  // namespace
}  // namespace ods::testing
