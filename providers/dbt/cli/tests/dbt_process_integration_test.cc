// The real dbt (./.venv) on a private copy of examples/shop: a build whose progress counts
// every node to dbt's own total, then a build stopped by Ctrl-C (SIGINT to this process,
// forwarded to dbt) that ends interrupted on that first SIGINT and leaves no dbt running.
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <fstream>
#include <nlohmann/json.hpp>

#include "harness/dbt_project.h"
#include "ods/dbt/cli/dbt_binary.h"
#include "ods/dbt/cli/dbt_invocation.h"
#include "ods/dbt/cli/interrupt_forwarding.h"

namespace ods::dbt {
namespace {

namespace fs = std::filesystem;
using ods::testing::DbtProject;

// Processes (not zombies) whose command line mentions `text`.
std::vector<pid_t> live_processes_mentioning(const std::string& text) {
  std::vector<pid_t> found;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream cmdline(entry.path() / "cmdline", std::ios::binary);
    std::string args((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
    if (args.find(text) == std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    std::getline(stat, line);
    const auto paren = line.rfind(')');
    if (paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] == 'Z') continue;
    found.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return found;
}

class DbtProcessIntegration : public ::testing::Test {
 protected:
  void SetUp() override {
    auto generated = project_.generate_data();
    ASSERT_EQ(generated.exit_code, 0) << generated.errors;
    const fs::path venv_dbt = ods::testing::venv_bin() / "dbt";
    // Chosen the way a user would: ODS_DBT.
    auto dbt = resolve_dbt_binary(
        "", [&](const std::string& name) { return name == "ODS_DBT" ? venv_dbt.string() : std::string(); });
    ASSERT_TRUE(dbt) << dbt.error().message;
    dbt_ = *dbt;
  }

  DbtInvocationOptions build_options() const {
    DbtInvocationOptions options;
    options.dbt = dbt_;
    options.args = {"build"};
    options.project_dir = project_.dir();
    options.profiles_dir = project_.dir();
    options.env = {{"DBT_SEND_ANONYMOUS_USAGE_STATS", "false"}, {"DO_NOT_TRACK", "1"}};
    options.interrupt_grace = std::chrono::seconds(60);
    return options;
  }

  DbtProject project_{"shop"};
  fs::path dbt_;
  std::unique_ptr<process::ProcessLauncher> launcher_ = process::make_process_launcher({});
};

TEST_F(DbtProcessIntegration, BuildThenABuildStoppedByCtrlC) {
  // 1. A full build: every node started and finished, up to the total dbt announced.
  DbtInvocation build(*launcher_, build_options());
  int progress_calls = 0;
  int last_finished = 0;
  build.set_progress_callback([&](const DbtProgress& p) {
    ++progress_calls;
    EXPECT_GE(p.finished(), last_finished);
    EXPECT_LE(p.finished(), p.total());
    last_finished = p.finished();
  });
  auto built = build.run();
  ASSERT_TRUE(built) << built.error().message;
  ASSERT_EQ(built->outcome, DbtOutcome::succeeded) << built->error_text();
  const DbtProgress& progress = built->progress;
  EXPECT_GT(progress.total(), 0);
  EXPECT_EQ(progress.started(), progress.total());
  EXPECT_EQ(progress.finished(), progress.total());
  EXPECT_EQ(progress.count(NodeState::succeeded), progress.total());
  ASSERT_TRUE(progress.summary().stats_seen);
  EXPECT_EQ(progress.summary().total, progress.total());
  EXPECT_EQ(progress.summary().pass, progress.total());
  EXPECT_GT(progress_calls, progress.total());  // live: at least one update per node
  EXPECT_EQ(progress.dbt_version(), "=1.10.15");
  // The artifacts on disk are this run's.
  std::ifstream run_results(project_.dir() / "target" / "run_results.json");
  auto doc = nlohmann::json::parse(run_results, nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  EXPECT_EQ(doc["metadata"]["invocation_id"], built->invocation_id);
  EXPECT_EQ(doc["results"].size(), static_cast<std::size_t>(progress.total()));

  // 2. The same build, Ctrl-C at the first node: dbt stops on that SIGINT (no SIGTERM was
  // needed within the 60 s grace), the run is "interrupted", and no dbt is left running.
  DbtInvocation stopped(*launcher_, build_options());
  bool pressed = false;
  stopped.set_event_callback([&](const DbtEvent& e) {
    if (e.name == "LogStartLine" && !pressed) {
      pressed = true;
      ::kill(::getpid(), SIGINT);
    }
  });
  auto interrupted = run_forwarding_interrupts(stopped);
  ASSERT_TRUE(interrupted) << interrupted.error().message;
  EXPECT_TRUE(pressed);
  EXPECT_EQ(interrupted->outcome, DbtOutcome::interrupted) << interrupted->error_text();
  EXPECT_TRUE(interrupted->exit.interrupted);
  EXPECT_EQ(interrupted->exit.last_signal_sent, SIGINT);
  EXPECT_EQ(interrupted->exit.term_signal, 0) << "dbt exits by itself on SIGINT";
  EXPECT_TRUE(interrupted->progress.summary().keyboard_interrupt);
  EXPECT_LT(interrupted->progress.finished(), interrupted->progress.total());
  EXPECT_TRUE(live_processes_mentioning(project_.dir().string()).empty());
}

}  // namespace
}  // namespace ods::dbt
