// The ods dbt driver with the real dbt (./.venv) on a private copy of examples/shop: several
// commands in one driver process, each with its own invocation id and artifacts; a failing
// command reports dbt's error text and leaves the driver usable; Ctrl-C during a build ends
// the command interrupted and the driver with it; `ods-write-manifest` writes the kept parse as
// `dbt parse` would; `ods-no-manifest` and `ods-write-compiled` hand over compiled nodes without
// a manifest written; its faster graph linking writes the graph summary dbt writes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "harness/dbt_project.h"
#include "ods/dbt/cli/dbt_driver.h"
#include "ods/dbt/cli/dbt_invocation.h"
#include "ods/dbt/cli/interrupt_forwarding.h"

namespace ods::dbt {
namespace {

namespace fs = std::filesystem;
using ods::testing::DbtProject;

// Live children of this test process running the driver: its source, and so this comment of it,
// is on their command line. (Only children: other suites on the machine run drivers too.)
int live_drivers() {
  int found = 0;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos || name == std::to_string(::getpid())) continue;
    std::ifstream cmdline(entry.path() / "cmdline", std::ios::binary);
    std::string args((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    std::getline(stat, line);
    const auto paren = line.rfind(')');
    const bool zombie = paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] == 'Z';
    const bool ours = paren != std::string::npos && paren + 4 < line.size() &&
                      std::atol(line.c_str() + paren + 4) == static_cast<long>(::getpid());
    if (!zombie && ours && args.find("The ods dbt driver: one Python process") != std::string::npos) ++found;
  }
  return found;
}

nlohmann::json read_json(const fs::path& file) {
  std::ifstream in(file);
  return nlohmann::json::parse(in, nullptr, false);
}

class DbtDriverIntegration : public ::testing::Test {
 protected:
  void SetUp() override {
    auto generated = project_.generate_data();
    ASSERT_EQ(generated.exit_code, 0) << generated.errors;
    auto python = console_script_python(ods::testing::venv_bin() / "dbt");
    ASSERT_TRUE(python) << "the .venv's dbt is not a console script";
    driver_ = make_dbt_driver_launcher(*real_, *python);
  }

  Result<DbtRunResult> run(std::vector<std::string> args, std::function<void(const DbtEvent&)> on_event = {}) {
    DbtInvocationOptions options;
    options.dbt = ods::testing::venv_bin() / "dbt";
    options.args = std::move(args);
    options.project_dir = project_.dir();
    options.profiles_dir = project_.dir();
    options.env = {{"DBT_SEND_ANONYMOUS_USAGE_STATS", "false"}, {"DO_NOT_TRACK", "1"}};
    options.interrupt_grace = std::chrono::seconds(60);
    DbtInvocation invocation(*driver_, std::move(options));
    if (on_event) invocation.set_event_callback(std::move(on_event));
    return run_forwarding_interrupts(invocation);
  }

  DbtProject project_{"shop"};
  std::unique_ptr<process::ProcessLauncher> real_ = process::make_process_launcher({});
  std::unique_ptr<process::ProcessLauncher> driver_;
};

TEST_F(DbtDriverIntegration, CommandsShareOneDriverYetKeepTheirOwnArtifacts) {
  auto compiled = run({"compile"});
  ASSERT_TRUE(compiled) << compiled.error().message;
  ASSERT_EQ(compiled->outcome, DbtOutcome::succeeded) << compiled->error_text();
  EXPECT_EQ(read_json(project_.dir() / "target" / "manifest.json")["metadata"]["invocation_id"],
            compiled->invocation_id);

  // A failing command: dbt's own error text; the driver stays usable.
  auto failed = run({"show", "--inline", "select * from nonexistent_table_xyz"});
  ASSERT_TRUE(failed) << failed.error().message;
  EXPECT_EQ(failed->outcome, DbtOutcome::failed);
  EXPECT_NE(failed->error_text().find("nonexistent_table_xyz"), std::string::npos) << failed->error_text();

  auto built = run({"build"});
  ASSERT_TRUE(built) << built.error().message;
  ASSERT_EQ(built->outcome, DbtOutcome::succeeded) << built->error_text();
  EXPECT_EQ(built->progress.finished(), built->progress.total());
  EXPECT_NE(built->invocation_id, compiled->invocation_id);
  EXPECT_NE(built->invocation_id, failed->invocation_id);
  // The build's artifacts are the build's: run_results.json and the manifest.json beside it
  // carry its invocation id (what `ods state record` checks), every node is in its results,
  // and the probe's inline node did not stay in the manifest.
  const auto run_results = read_json(project_.dir() / "target" / "run_results.json");
  const auto manifest = read_json(project_.dir() / "target" / "manifest.json");
  EXPECT_EQ(run_results["metadata"]["invocation_id"], built->invocation_id);
  EXPECT_EQ(manifest["metadata"]["invocation_id"], built->invocation_id);
  EXPECT_EQ(run_results["args"]["which"], "build");
  EXPECT_EQ(run_results["results"].size(), static_cast<std::size_t>(built->progress.total()));
  for (const auto& [id, node] : manifest["nodes"].items()) EXPECT_EQ(id.find("inline_query"), std::string::npos);
  EXPECT_EQ(live_drivers(), 1);
}

// `ods-write-manifest DIR`: the manifest the driver keeps, written as `dbt parse` writes it
// (the same document but for its metadata), after a parse that wrote none; before any parse,
// a refusal that says why.
TEST_F(DbtDriverIntegration, TheKeptManifestIsWrittenOnRequestAsDbtParseWritesIt) {
  const fs::path copy = project_.dir() / "target" / "ods-parse";
  auto early = run({kDriverWriteManifest, copy.string()});
  ASSERT_TRUE(early) << early.error().message;
  EXPECT_EQ(early->outcome, DbtOutcome::failed);
  EXPECT_NE(early->error_text().find("no parsed manifest to write"), std::string::npos) << early->error_text();

  auto parsed = run({"parse", "--no-write-json"});
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_EQ(parsed->outcome, DbtOutcome::succeeded) << parsed->error_text();
  EXPECT_FALSE(fs::exists(project_.dir() / "target" / "manifest.json"));
  auto written = run({kDriverWriteManifest, copy.string()});
  ASSERT_TRUE(written) << written.error().message;
  ASSERT_EQ(written->outcome, DbtOutcome::succeeded) << written->error_text();

  ods::testing::ProcessResult plain = project_.dbt({"parse"});
  ASSERT_EQ(plain.exit_code, 0) << plain.output << plain.errors;
  auto kept = read_json(copy / "manifest.json");
  auto parsed_by_dbt = read_json(project_.dir() / "target" / "manifest.json");
  ASSERT_FALSE(kept.is_discarded());
  kept.erase("metadata");
  parsed_by_dbt.erase("metadata");
  EXPECT_EQ(kept, parsed_by_dbt);
}

// `ods-no-manifest` runs a command without dbt's manifest writer (run_results.json still
// written, with the command's invocation id); `ods-write-compiled FILE` then hands over the nodes
// that command compiled, each exactly as the compile's own manifest.json holds it.
TEST_F(DbtDriverIntegration, CompiledNodesAreHandedOverAsTheCompilesManifestHoldsThem) {
  const fs::path target = project_.dir() / "target";
  const fs::path file = target / "ods-parse" / "compiled_nodes.json";
  auto early = run({kDriverWriteCompiled, file.string()});
  ASSERT_TRUE(early) << early.error().message;
  EXPECT_EQ(early->outcome, DbtOutcome::failed) << "no parse kept yet";

  auto parsed = run({"parse", "--no-write-json"});
  ASSERT_TRUE(parsed && parsed->outcome == DbtOutcome::succeeded);
  // The compile dbt writes the manifest of: the reference.
  auto compiled = run({"compile", "--select", "fct_orders"});
  ASSERT_TRUE(compiled) << compiled.error().message;
  ASSERT_EQ(compiled->outcome, DbtOutcome::succeeded) << compiled->error_text();
  auto written = run({kDriverWriteCompiled, file.string()});
  ASSERT_TRUE(written && written->outcome == DbtOutcome::succeeded) << (written ? written->error_text() : "");
  const auto manifest = read_json(target / "manifest.json");
  const auto handed = read_json(file);
  ASSERT_FALSE(handed.is_discarded());
  EXPECT_EQ(handed["ods_compiled_nodes"], 1);
  EXPECT_EQ(handed["invocation_id"], compiled->invocation_id);
  ASSERT_TRUE(handed["nodes"].contains("model.shop.fct_orders")) << handed["nodes"].dump();
  std::size_t compiled_in_manifest = 0;
  for (const auto& [id, node] : manifest["nodes"].items()) {
    if (!node.value("compiled", false)) continue;
    ++compiled_in_manifest;
    EXPECT_EQ(handed["nodes"].value(id, nlohmann::json()), node) << id;
  }
  EXPECT_EQ(handed["nodes"].size(), compiled_in_manifest);

  // Without the manifest writer: no manifest.json, run_results.json of this compile.
  fs::remove(target / "manifest.json");
  fs::remove(target / "semantic_manifest.json");
  auto quiet = run({"compile", "--select", "stg_orders", kDriverNoManifest});
  ASSERT_TRUE(quiet) << quiet.error().message;
  ASSERT_EQ(quiet->outcome, DbtOutcome::succeeded) << quiet->error_text();
  EXPECT_FALSE(fs::exists(target / "manifest.json"));
  EXPECT_FALSE(fs::exists(target / "semantic_manifest.json"));
  EXPECT_EQ(read_json(target / "run_results.json")["metadata"]["invocation_id"], quiet->invocation_id);
  auto again = run({kDriverWriteCompiled, file.string()});
  ASSERT_TRUE(again && again->outcome == DbtOutcome::succeeded);
  const auto handed_again = read_json(file);
  EXPECT_TRUE(handed_again["nodes"].contains("model.shop.stg_orders"));
  EXPECT_FALSE(handed_again["nodes"].contains("model.shop.fct_orders")) << "only what the last command compiled";
  // The next command writes the manifest again as dbt does.
  auto loud = run({"compile", "--select", "stg_orders"});
  ASSERT_TRUE(loud && loud->outcome == DbtOutcome::succeeded);
  EXPECT_TRUE(fs::exists(target / "manifest.json"));
}

// The driver links dbt's graph faster (link_graphs_faster in ods_dbt_driver.py) and must give
// the answers dbt gives itself: the graph summary a build writes (the linked graph, and with
// the test edges a build adds) is the one a plain dbt process writes.
TEST_F(DbtDriverIntegration, TheGraphSummaryABuildWritesIsTheOneDbtWritesItself) {
  // dbt's own process first: the driver keeps DuckDB's file lock while it lives.
  ods::testing::ProcessResult plain = project_.dbt({"build"});
  ASSERT_EQ(plain.exit_code, 0) << plain.output << plain.errors;
  auto by_dbt = read_json(project_.dir() / "target" / "graph_summary.json");
  auto built = run({"build"});
  ASSERT_TRUE(built) << built.error().message;
  ASSERT_EQ(built->outcome, DbtOutcome::succeeded) << built->error_text();
  auto in_driver = read_json(project_.dir() / "target" / "graph_summary.json");
  ASSERT_TRUE(in_driver.contains("with_test_edges")) << in_driver.dump();
  EXPECT_GT(in_driver["linked"].size(), 10U);
  in_driver.erase("_invocation_id");
  by_dbt.erase("_invocation_id");
  EXPECT_EQ(in_driver, by_dbt);
}

// What the driver says of a command itself (here dbt's usage error) is in that command's error
// text, every time: it comes on stdout, in order with the command's end.
TEST_F(DbtDriverIntegration, AUsageErrorNamesTheFlagInItsCommandsErrorText) {
  for (int i = 0; i < 3; ++i) {
    auto refused = run({"parse", "--no-such-flag"});
    ASSERT_TRUE(refused) << refused.error().message;
    EXPECT_EQ(refused->outcome, DbtOutcome::failed);
    EXPECT_NE(refused->error_text().find("usage error"), std::string::npos) << refused->error_text();
    EXPECT_NE(refused->error_text().find("--no-such-flag"), std::string::npos) << refused->error_text();
  }
}

TEST_F(DbtDriverIntegration, CtrlCDuringABuildInterruptsItAndEndsTheDriver) {
  auto compiled = run({"compile"});
  ASSERT_TRUE(compiled) << compiled.error().message;
  ASSERT_EQ(compiled->outcome, DbtOutcome::succeeded) << compiled->error_text();
  bool pressed = false;
  auto stopped = run({"build"}, [&](const DbtEvent& e) {
    if (e.name == "LogStartLine" && !pressed) {
      pressed = true;
      ::kill(::getpid(), SIGINT);
    }
  });
  ASSERT_TRUE(stopped) << stopped.error().message;
  EXPECT_TRUE(pressed);
  EXPECT_EQ(stopped->outcome, DbtOutcome::interrupted) << stopped->error_text();
  EXPECT_TRUE(stopped->progress.summary().keyboard_interrupt);
  EXPECT_LT(stopped->progress.finished(), stopped->progress.total());
  // Nothing runs after an interruption: the driver is gone and refuses further commands.
  auto next = run({"build"});
  ASSERT_FALSE(next);
  EXPECT_EQ(next.error().code, "spawn_failed");
  for (int i = 0; i < 200 && live_drivers() > 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(live_drivers(), 0);
}

}  // namespace
}  // namespace ods::dbt
