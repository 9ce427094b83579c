// DbtInvocation with fake dbt programs (shell scripts replaying real dbt output from
// fixtures/) and with an injected fake process::ProcessLauncher.
#include "ods/dbt/cli/dbt_invocation.h"

#include <gtest/gtest.h>

#include <csignal>

#include "event_fixtures.h"
#include "process/tests/test_programs.h"

namespace ods::dbt {
namespace {

namespace fs = std::filesystem;
using process::testing::TempDir;
using testing::fixture_path;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A fake dbt: records its arguments and working directory, then prints `fixture` and exits.
fs::path replaying_dbt(const TempDir& dir, const std::string& fixture, int exit_code, const std::string& extra = "") {
  return dir.script("bin/dbt", "printf '%s\\n' \"$@\" > '" + (dir.path() / "args").string() + "'\n" + "pwd > '" +
                                   (dir.path() / "cwd").string() + "'\n" + extra + "\n" + "cat '" +
                                   fixture_path(fixture).string() + "'\nexit " + std::to_string(exit_code));
}

DbtInvocationOptions options_for(const TempDir& dir, fs::path dbt) {
  fs::create_directories(dir.path() / "project");
  DbtInvocationOptions options;
  options.dbt = std::move(dbt);
  options.args = {"build"};
  options.project_dir = dir.path() / "project";
  return options;
}

TEST(DbtInvocation, CommandLinePutsLogFormatFirstAndProfilesDirLast) {
  auto launcher = process::make_process_launcher({});
  DbtInvocationOptions options;
  options.dbt = "/opt/dbt";
  options.args = {"build", "--select", "a+"};
  options.profiles_dir = "/p";
  DbtInvocation invocation(*launcher, options);
  EXPECT_EQ(invocation.command_line(), (std::vector<std::string>{"/opt/dbt", "--log-format", "json", "build",
                                                                 "--select", "a+", "--profiles-dir", "/p"}));
  options.profiles_dir.clear();
  EXPECT_EQ(DbtInvocation(*launcher, options).command_line().back(), "a+");
}

TEST(DbtInvocation, ASuccessfulBuildReportsProgressToTheTotal) {
  TempDir dir;
  auto launcher = process::make_process_launcher({});
  DbtInvocationOptions options = options_for(dir, replaying_dbt(dir, "build_success.jsonl", 0, "echo \"$DBT_X\" >&2"));
  options.args = {"build", "--select", "stg_payments+"};
  options.profiles_dir = dir.path() / "profiles";
  options.env = {{"DBT_X", "from-env"}};
  DbtInvocation invocation(*launcher, options);
  int events = 0;
  std::vector<std::pair<int, int>> seen;  // (finished, total) at each progress callback
  invocation.set_event_callback([&](const DbtEvent&) { ++events; });
  invocation.set_progress_callback([&](const DbtProgress& p) { seen.emplace_back(p.finished(), p.total()); });

  auto result = invocation.run();
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->outcome, DbtOutcome::succeeded);
  EXPECT_EQ(result->exit.exit_code, 0);
  EXPECT_EQ(result->error_text(), "");
  EXPECT_EQ(result->progress.total(), 19);
  EXPECT_EQ(result->progress.finished(), 19);
  EXPECT_EQ(result->invocation_id, "2bac6e25-9340-41b6-a479-400830d16a74");
  EXPECT_EQ(events, 52);  // 51 events and the stderr line
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back(), std::make_pair(19, 19));
  for (std::size_t i = 1; i < seen.size(); ++i) EXPECT_LE(seen[i - 1].first, seen[i].first);
  EXPECT_EQ(result->output_tail, (std::vector<std::string>{"from-env"}));

  EXPECT_EQ(dir.read("args"), "--log-format\njson\nbuild\n--select\nstg_payments+\n--profiles-dir\n" +
                                  (dir.path() / "profiles").string() + "\n");
  EXPECT_EQ(fs::path(dir.read("cwd").substr(0, dir.read("cwd").size() - 1)), fs::canonical(dir.path() / "project"));
}

TEST(DbtInvocation, AFailedModelGivesDbtsOwnErrorText) {
  TempDir dir;
  auto launcher = process::make_process_launcher({});
  DbtInvocation invocation(*launcher, options_for(dir, replaying_dbt(dir, "build_model_error.jsonl", 1)));
  auto result = invocation.run();
  ASSERT_TRUE(result);
  EXPECT_EQ(result->outcome, DbtOutcome::failed);
  EXPECT_EQ(result->exit.exit_code, 1);
  EXPECT_EQ(result->progress.count(NodeState::errored), 1);
  EXPECT_EQ(result->progress.count(NodeState::skipped), 7);
  const std::string text = result->error_text();
  EXPECT_TRUE(contains(text, "dbt failed with exit code 1.")) << text;
  EXPECT_TRUE(contains(text, "Catalog Error: Table with name nonexistent_table_xyz does not exist!")) << text;
  EXPECT_TRUE(contains(text, "Failure in model stg_payments")) << text;
  EXPECT_FALSE(contains(text, "\x1b[")) << text;
  EXPECT_FALSE(contains(text, "PASS")) << "only error-level events: " << text;
}

TEST(DbtInvocation, ACompilationErrorBeforeAnyNode) {
  TempDir dir;
  auto launcher = process::make_process_launcher({});
  DbtInvocation invocation(*launcher, options_for(dir, replaying_dbt(dir, "build_compile_error.jsonl", 2)));
  auto result = invocation.run();
  ASSERT_TRUE(result);
  EXPECT_EQ(result->outcome, DbtOutcome::failed);
  EXPECT_EQ(result->progress.total(), 0);
  EXPECT_TRUE(contains(result->error_text(), "depends on a node named 'nope' which was not found"))
      << result->error_text();
}

TEST(DbtInvocation, PlainTextAndStderrAreKeptForTheReport) {
  // What click prints for a bad flag, and a traceback printed outside the JSON logger.
  TempDir dir;
  auto launcher = process::make_process_launcher({});
  fs::path dbt = dir.script("dbt",
                            "echo 'Traceback (most recent call last):'\n"
                            "echo '  File \"x.py\", line 1'\n"
                            "echo 'Usage: dbt build [OPTIONS]' >&2\n"
                            "echo \"Error: Invalid value for '--profiles-dir': Path '/nonexist' does not exist.\" >&2\n"
                            "exit 2");
  DbtInvocationOptions options = options_for(dir, dbt);
  std::vector<DbtEvent> events;
  DbtInvocation invocation(*launcher, options);
  invocation.set_event_callback([&](const DbtEvent& e) { events.push_back(e); });
  auto result = invocation.run();
  ASSERT_TRUE(result);
  EXPECT_EQ(result->outcome, DbtOutcome::failed);
  EXPECT_EQ(result->exit.exit_code, 2);
  ASSERT_EQ(events.size(), 4u);
  for (const DbtEvent& e : events) EXPECT_TRUE(e.is_plain());
  EXPECT_EQ(result->output_tail.size(), 4u);
  const std::string text = result->error_text();
  EXPECT_TRUE(contains(text, "Invalid value for '--profiles-dir'")) << text;
  EXPECT_TRUE(contains(text, "Traceback (most recent call last):")) << text;
}

TEST(DbtInvocation, TheTailKeepsOnlyTheLastLines) {
  TempDir dir;
  auto launcher = process::make_process_launcher({});
  DbtInvocationOptions options = options_for(dir, dir.script("dbt", "seq 1 100 >&2; exit 1"));
  options.tail_lines = 3;
  auto result = DbtInvocation(*launcher, options).run();
  ASSERT_TRUE(result);
  EXPECT_EQ(result->output_tail, (std::vector<std::string>{"98", "99", "100"}));
}

TEST(DbtInvocation, DbtReportingAKeyboardInterruptIsInterrupted) {
  // Someone sent dbt SIGINT directly: dbt says so in EndOfRunSummary.
  TempDir dir;
  auto launcher = process::make_process_launcher({});
  DbtInvocation invocation(*launcher, options_for(dir, replaying_dbt(dir, "build_interrupted.jsonl", 2)));
  auto result = invocation.run();
  ASSERT_TRUE(result);
  EXPECT_EQ(result->outcome, DbtOutcome::interrupted);
  EXPECT_FALSE(result->exit.interrupted);
  EXPECT_TRUE(contains(result->error_text(), "dbt was interrupted")) << result->error_text();
}

TEST(DbtInvocation, InterruptStopsDbtAndTheRunIsInterrupted) {
  TempDir dir;
  auto launcher = process::make_process_launcher({});
  const std::string start = R"({"info": {"name": "LogStartLine", "level": "info", "msg": "1 of 2 START"}, )"
                            R"("data": {"index": 1, "total": 2}})";
  const std::string summary = R"({"info": {"name": "EndOfRunSummary", "level": "info", "msg": "Exited"}, )"
                              R"("data": {"keyboard_interrupt": true}})";
  const fs::path start_file = dir.write("start.json", start + "\n");
  const fs::path summary_file = dir.write("summary.json", summary + "\n");
  fs::path dbt =
      dir.script("dbt", "trap \"cat '" + summary_file.string() + "'; echo got-int > '" + (dir.path() / "got").string() +
                            "'; exit 2\" INT\ncat '" + start_file.string() + "'\nwhile :; do sleep 1; done");
  DbtInvocation invocation(*launcher, options_for(dir, dbt));
  invocation.set_event_callback([&](const DbtEvent& e) {
    if (e.name == "LogStartLine") invocation.interrupt();
  });
  auto result = invocation.run();
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->outcome, DbtOutcome::interrupted);
  EXPECT_TRUE(result->exit.interrupted);
  EXPECT_EQ(result->exit.last_signal_sent, SIGINT);
  EXPECT_EQ(result->exit.exit_code, 2);
  EXPECT_EQ(dir.read("got"), "got-int\n");
  EXPECT_EQ(result->progress.started(), 1);
  EXPECT_EQ(result->progress.finished(), 0);
  EXPECT_TRUE(contains(result->error_text(), "nothing of this run is recorded")) << result->error_text();
}

TEST(DbtInvocation, InterruptBeforeRunNeverStartsDbt) {
  TempDir dir;
  auto launcher = process::make_process_launcher({});
  DbtInvocation invocation(*launcher,
                           options_for(dir, dir.script("dbt", "touch '" + (dir.path() / "ran").string() + "'")));
  invocation.interrupt();
  auto result = invocation.run();
  ASSERT_TRUE(result);
  EXPECT_EQ(result->outcome, DbtOutcome::interrupted);
  EXPECT_TRUE(result->exit.interrupted);
  EXPECT_FALSE(dir.exists("ran"));
}

TEST(DbtInvocation, ArgumentsMustNotChooseTheLogFormat) {
  TempDir dir;
  auto launcher = process::make_process_launcher({});
  for (const char* flag : {"--log-format", "--log-format=text"}) {
    DbtInvocationOptions options = options_for(dir, dir.script("dbt", "touch '" + (dir.path() / "ran").string() + "'"));
    options.args = {"build", flag};
    auto result = DbtInvocation(*launcher, options).run();
    ASSERT_FALSE(result);
    EXPECT_EQ(result.error().code, "usage");
    EXPECT_FALSE(dir.exists("ran"));
  }
}

TEST(DbtInvocation, AMissingBinaryIsAnErrorNamingIt) {
  TempDir dir;
  auto launcher = process::make_process_launcher({});
  auto result = DbtInvocation(*launcher, options_for(dir, dir.path() / "no-dbt")).run();
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, "not_found");
  EXPECT_TRUE(contains(result.error().message, "no-dbt")) << result.error().message;
}

// An injected launcher: replays lines without starting anything.
class ReplayLauncher final : public process::ProcessLauncher {
 public:
  ReplayLauncher(std::vector<std::string> lines, int exit_code) : lines_(std::move(lines)), exit_code_(exit_code) {}

  Result<std::unique_ptr<process::RunningProcess>> start(process::ProcessSpec spec) override {
    started_argv = spec.argv;
    started_cwd = spec.cwd;
    return std::make_unique<Replay>(std::move(spec), lines_, exit_code_);
  }

  std::vector<std::string> started_argv;
  fs::path started_cwd;

 private:
  class Replay final : public process::RunningProcess {
   public:
    Replay(process::ProcessSpec spec, std::vector<std::string> lines, int exit_code)
        : spec_(std::move(spec)), lines_(std::move(lines)), exit_code_(exit_code) {}
    pid_t pid() const override { return 0; }
    Result<process::ExitStatus> wait() override {
      for (const std::string& line : lines_) spec_.on_line(process::Stream::standard_output, line);
      process::ExitStatus status;
      status.exit_code = exit_code_;
      return status;
    }
    void interrupt() override {}

   private:
    process::ProcessSpec spec_;
    std::vector<std::string> lines_;
    int exit_code_;
  };

  std::vector<std::string> lines_;
  int exit_code_;
};

TEST(DbtInvocation, RunsOnAnInjectedLauncher) {
  ReplayLauncher launcher(testing::fixture_lines("build_model_error.jsonl"), 1);
  DbtInvocationOptions options;
  options.dbt = "/fake/dbt";
  options.args = {"run"};
  options.project_dir = "/fake/project";
  auto result = DbtInvocation(launcher, options).run();
  ASSERT_TRUE(result);
  EXPECT_EQ(launcher.started_argv, (std::vector<std::string>{"/fake/dbt", "--log-format", "json", "run"}));
  EXPECT_EQ(launcher.started_cwd, "/fake/project");
  EXPECT_EQ(result->outcome, DbtOutcome::failed);
  EXPECT_EQ(result->progress.finished(), 19);
  EXPECT_EQ(result->error_messages.size(), 4u);
}

}  // namespace
}  // namespace ods::dbt
