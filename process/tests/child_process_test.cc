// The POSIX ProcessLauncher against small shell programs: output, exit status, interruption
// and its escalation, process groups (grandchildren), large output, no zombies.
#include "ods/process/child_process.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <atomic>
#include <csignal>
#include <thread>

#include "process/tests/test_programs.h"

namespace ods::process {
namespace {

using std::chrono::milliseconds;
using testing::eventually;
using testing::process_gone;
using testing::read_pid;
using testing::TempDir;

struct Captured {
  std::vector<std::string> out;
  std::vector<std::string> err;
};

// A spec whose lines land in `captured`; `on_stdout` (optional) sees each stdout line too.
ProcessSpec spec_for(std::vector<std::string> argv, Captured& captured,
                     std::function<void(std::string_view)> on_stdout = {}) {
  ProcessSpec spec;
  spec.argv = std::move(argv);
  spec.on_line = [&captured, on_stdout = std::move(on_stdout)](Stream stream, std::string_view line) {
    (stream == Stream::standard_output ? captured.out : captured.err).emplace_back(line);
    if (stream == Stream::standard_output && on_stdout) on_stdout(line);
  };
  return spec;
}

// Runs to the end; `interrupt_on` names a stdout line at which interrupt() is called `times` times.
Result<ExitStatus> run(ProcessSpec spec, const std::string& interrupt_on = "", int times = 1) {
  RunningProcess* running = nullptr;
  if (!interrupt_on.empty()) {
    spec.on_line = [inner = std::move(spec.on_line), &running, interrupt_on, times](Stream stream,
                                                                                    std::string_view line) {
      if (inner) inner(stream, line);
      if (stream == Stream::standard_output && line == interrupt_on)
        for (int i = 0; i < times; ++i) running->interrupt();
    };
  }
  auto launcher = make_process_launcher({});
  auto started = launcher->start(std::move(spec));
  if (!started) return std::unexpected(started.error());
  running = started->get();
  return (*started)->wait();
}

ProcessSpec spec_of(std::vector<std::string> argv, std::filesystem::path cwd = {}) {
  ProcessSpec spec;
  spec.argv = std::move(argv);
  spec.cwd = std::move(cwd);
  return spec;
}

bool reaped(pid_t pid) {
  int raw = 0;
  return ::waitpid(pid, &raw, WNOHANG) == -1 && errno == ECHILD;
}

TEST(ChildProcess, DeliversStdoutAndStderrLinesAndTheExitCode) {
  TempDir dir;
  Captured captured;
  auto status =
      run(spec_for({dir.script("p", "echo one; echo two >&2; echo three; printf partial; exit 3").string()}, captured));
  ASSERT_TRUE(status) << status.error().message;
  EXPECT_EQ(status->exit_code, 3);
  EXPECT_EQ(status->term_signal, 0);
  EXPECT_FALSE(status->interrupted);
  EXPECT_EQ(status->last_signal_sent, 0);
  EXPECT_EQ(captured.out, (std::vector<std::string>{"one", "three", "partial"}));
  EXPECT_EQ(captured.err, (std::vector<std::string>{"two"}));
}

TEST(ChildProcess, RunsInItsWorkingDirectoryWithTheExtraEnvironment) {
  TempDir dir;
  std::filesystem::create_directories(dir.path() / "project");
  Captured captured;
  ProcessSpec spec = spec_for(
      {dir.script("p", "pwd; echo \"$ODS_TEST_VALUE\"; echo \"${ODS_TEST_PARENT-unset}\"").string()}, captured);
  spec.cwd = dir.path() / "project";
  spec.env = {{"ODS_TEST_VALUE", "hello world"}};
  ::setenv("ODS_TEST_PARENT", "inherited", 1);
  auto status = run(std::move(spec));
  ::unsetenv("ODS_TEST_PARENT");
  ASSERT_TRUE(status) << status.error().message;
  ASSERT_EQ(captured.out.size(), 3u);
  EXPECT_EQ(std::filesystem::path(captured.out[0]), std::filesystem::canonical(dir.path() / "project"));
  EXPECT_EQ(captured.out[1], "hello world");
  EXPECT_EQ(captured.out[2], "inherited");
}

TEST(ChildProcess, ExtraEnvironmentReplacesAnInheritedValue) {
  TempDir dir;
  Captured captured;
  ProcessSpec spec = spec_for({dir.script("p", "echo \"$ODS_TEST_PARENT\"").string()}, captured);
  spec.env = {{"ODS_TEST_PARENT", "replaced"}};
  ::setenv("ODS_TEST_PARENT", "inherited", 1);
  auto status = run(std::move(spec));
  ::unsetenv("ODS_TEST_PARENT");
  ASSERT_TRUE(status);
  EXPECT_EQ(captured.out, (std::vector<std::string>{"replaced"}));
}

// The removal list (a caller's secrets): every child of the launcher lacks those variables,
// even one set after the launcher was made, while the rest of the environment still arrives;
// a name the caller passes in ProcessSpec::env on purpose reaches that child.
TEST(ChildProcess, WithheldVariablesNeverReachAChild) {
  TempDir dir;
  const auto program =
      dir.script("p", "echo \"${ODS_TEST_SECRET-unset} ${ODS_TEST_LATER-unset} ${ODS_TEST_PARENT-unset}\"; env");
  auto launcher = make_process_launcher({"ODS_TEST_SECRET", "ODS_TEST_LATER"});
  ::setenv("ODS_TEST_SECRET", "s3cret-value", 1);
  ::setenv("ODS_TEST_LATER", "later-value", 1);
  ::setenv("ODS_TEST_PARENT", "inherited", 1);
  std::vector<Captured> seen(2);
  for (int round = 0; round < 2; ++round) {  // twice: the launcher keeps withholding
    ProcessSpec spec = spec_for({program.string()}, seen[round]);
    auto started = launcher->start(std::move(spec));
    ASSERT_TRUE(started) << started.error().message;
    ASSERT_TRUE((*started)->wait());
  }
  Captured given;
  ProcessSpec explicit_spec = spec_for({program.string()}, given);
  explicit_spec.env = {{"ODS_TEST_SECRET", "for-this-child"}};
  auto started = launcher->start(std::move(explicit_spec));
  ASSERT_TRUE(started) << started.error().message;
  ASSERT_TRUE((*started)->wait());
  ::unsetenv("ODS_TEST_SECRET");
  ::unsetenv("ODS_TEST_LATER");
  ::unsetenv("ODS_TEST_PARENT");
  for (const Captured& captured : seen) {
    ASSERT_FALSE(captured.out.empty());
    EXPECT_EQ(captured.out.front(), "unset unset inherited");
    for (const std::string& line : captured.out) {
      EXPECT_EQ(line.find("s3cret-value"), std::string::npos) << line;
      EXPECT_EQ(line.find("later-value"), std::string::npos) << line;
    }
  }
  ASSERT_FALSE(given.out.empty());
  EXPECT_EQ(given.out.front(), "for-this-child unset inherited");
}

TEST(ChildProcess, ALauncherWithholdingNothingPassesEverythingOn) {
  TempDir dir;
  Captured captured;
  ::setenv("ODS_TEST_SECRET", "s3cret-value", 1);
  auto status = run(spec_for({dir.script("p", "echo \"${ODS_TEST_SECRET-unset}\"").string()}, captured));
  ::unsetenv("ODS_TEST_SECRET");
  ASSERT_TRUE(status);
  EXPECT_EQ(captured.out, (std::vector<std::string>{"s3cret-value"}));
}
TEST(ChildProcess, StdinIsEmptySoAReaderDoesNotWait) {
  TempDir dir;
  Captured captured;
  auto status = run(spec_for({dir.script("p", "cat; echo done").string()}, captured));
  ASSERT_TRUE(status);
  EXPECT_EQ(captured.out, (std::vector<std::string>{"done"}));
}

TEST(ChildProcess, ReportsTheSignalThatEndedIt) {
  TempDir dir;
  Captured captured;
  auto status = run(spec_for({dir.script("p", "kill -KILL $$").string()}, captured));
  ASSERT_TRUE(status);
  EXPECT_EQ(status->term_signal, SIGKILL);
  EXPECT_EQ(status->exit_code, 128 + SIGKILL);
  EXPECT_FALSE(status->interrupted);
}

TEST(ChildProcess, StartErrorsNameTheProgram) {
  TempDir dir;
  auto launcher = make_process_launcher({});
  auto missing = launcher->start(spec_of({(dir.path() / "no-such-dbt").string()}));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, "not_found");
  EXPECT_NE(missing.error().message.find("no-such-dbt"), std::string::npos);

  auto not_on_path = launcher->start(spec_of({"ods-test-no-such-program"}));
  ASSERT_FALSE(not_on_path);
  EXPECT_EQ(not_on_path.error().code, "not_found");

  auto not_executable = launcher->start(spec_of({dir.write("plain.txt", "echo hi\n").string()}));
  ASSERT_FALSE(not_executable);
  EXPECT_EQ(not_executable.error().code, "permission_denied");

  auto empty = launcher->start(ProcessSpec{});
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().code, "invalid_argument");

  auto no_cwd = launcher->start(spec_of({"/bin/true"}, dir.path() / "missing"));
  ASSERT_FALSE(no_cwd);
  EXPECT_EQ(no_cwd.error().code, "not_found");
  EXPECT_NE(no_cwd.error().message.find("missing"), std::string::npos);
}

TEST(ChildProcess, LargeOutputOnBothStreamsDoesNotDeadlock) {
  // 200k lines (~1.3 MB) to stderr before anything to stdout, then 200k to stdout and one
  // 1 MB line: far beyond the 64 KiB of a pipe, so reading only one stream would block both.
  TempDir dir;
  std::size_t out_lines = 0, err_lines = 0, longest = 0;
  std::string last_out, last_err;
  ProcessSpec spec;
  spec.argv = {
      dir.script("p", "seq 1 200000 >&2; seq 1 200000; head -c 1048576 /dev/zero | tr '\\0' x; echo").string()};
  spec.on_line = [&](Stream stream, std::string_view line) {
    longest = std::max(longest, line.size());
    if (stream == Stream::standard_output) {
      ++out_lines;
      if (line.size() < 10) last_out = line;
    } else {
      ++err_lines;
      last_err = line;
    }
  };
  auto status = run(std::move(spec));
  ASSERT_TRUE(status);
  EXPECT_EQ(status->exit_code, 0);
  EXPECT_EQ(err_lines, 200000u);
  EXPECT_EQ(out_lines, 200001u);
  EXPECT_EQ(last_err, "200000");
  EXPECT_EQ(last_out, "200000");
  EXPECT_EQ(longest, 1048576u);
}

TEST(ChildProcess, ALineLongerThanTheLimitArrivesInPieces) {
  TempDir dir;
  Captured captured;
  ProcessSpec spec =
      spec_for({dir.script("p", "head -c 2500 /dev/zero | tr '\\0' x; echo; echo end").string()}, captured);
  spec.max_line_bytes = 1000;
  auto status = run(std::move(spec));
  ASSERT_TRUE(status);
  ASSERT_EQ(captured.out.size(), 4u);
  EXPECT_EQ(captured.out[0].size(), 1000u);
  EXPECT_EQ(captured.out[1].size(), 1000u);
  EXPECT_EQ(captured.out[2].size(), 500u);
  EXPECT_EQ(captured.out[3], "end");
}

TEST(ChildProcess, InterruptSendsSigintAndTheChildStopsCleanly) {
  TempDir dir;
  Captured captured;
  auto status = run(
      spec_for({dir.script("p", "trap 'echo got-int; exit 130' INT; echo ready; while :; do sleep 1; done").string()},
               captured),
      "ready");
  ASSERT_TRUE(status);
  EXPECT_EQ(status->exit_code, 130);
  EXPECT_TRUE(status->interrupted);
  EXPECT_EQ(status->last_signal_sent, SIGINT);
  EXPECT_EQ(captured.out, (std::vector<std::string>{"ready", "got-int"}));
}

TEST(ChildProcess, ACleanupWithinTheGracePeriodIsNotCutShort) {
  // The child takes a while after SIGINT (like dbt cancelling its queries) and is let finish.
  TempDir dir;
  Captured captured;
  ProcessSpec spec = spec_for(
      {dir.script("p",
                  "trap 'echo cleaning; sleep 0.3; echo cleaned; exit 4' INT; echo ready; while :; do sleep 1; done")
           .string()},
      captured);
  spec.interrupt_grace = std::chrono::seconds(60);
  auto status = run(std::move(spec), "ready");
  ASSERT_TRUE(status);
  EXPECT_EQ(status->exit_code, 4);
  EXPECT_EQ(status->term_signal, 0);
  EXPECT_EQ(status->last_signal_sent, SIGINT);
  EXPECT_EQ(captured.out, (std::vector<std::string>{"ready", "cleaning", "cleaned"}));
}

TEST(ChildProcess, AChildIgnoringSigintGetsSigtermAfterTheGrace) {
  TempDir dir;
  Captured captured;
  ProcessSpec spec =
      spec_for({dir.script("p", "trap '' INT; echo ready; while :; do sleep 1; done").string()}, captured);
  spec.interrupt_grace = milliseconds(100);
  auto status = run(std::move(spec), "ready");
  ASSERT_TRUE(status);
  EXPECT_EQ(status->term_signal, SIGTERM);
  EXPECT_EQ(status->last_signal_sent, SIGTERM);
  EXPECT_TRUE(status->interrupted);
}

TEST(ChildProcess, AChildIgnoringSigintAndSigtermIsKilled) {
  TempDir dir;
  Captured captured;
  ProcessSpec spec =
      spec_for({dir.script("p", "trap '' INT TERM; echo ready; while :; do sleep 1; done").string()}, captured);
  spec.interrupt_grace = milliseconds(100);
  spec.terminate_grace = milliseconds(100);
  auto status = run(std::move(spec), "ready");
  ASSERT_TRUE(status);
  EXPECT_EQ(status->term_signal, SIGKILL);
  EXPECT_EQ(status->last_signal_sent, SIGKILL);
}

TEST(ChildProcess, RepeatedInterruptsEscalateAtOnce) {
  // Grace periods of an hour: only the repeated calls can end this child.
  TempDir dir;
  Captured captured;
  ProcessSpec spec =
      spec_for({dir.script("p", "trap '' INT TERM; echo ready; while :; do sleep 1; done").string()}, captured);
  spec.interrupt_grace = std::chrono::hours(1);
  spec.terminate_grace = std::chrono::hours(1);
  auto status = run(std::move(spec), "ready", 3);
  ASSERT_TRUE(status);
  EXPECT_EQ(status->term_signal, SIGKILL);
  EXPECT_EQ(status->last_signal_sent, SIGKILL);
}

TEST(ChildProcess, InterruptFromAnotherThread) {
  TempDir dir;
  Captured captured;
  std::atomic<bool> ready{false};
  ProcessSpec spec = spec_for({dir.script("p", "trap 'exit 130' INT; echo ready; while :; do sleep 1; done").string()},
                              captured, [&](std::string_view line) {
                                if (line == "ready") ready = true;
                              });
  auto launcher = make_process_launcher({});
  auto started = launcher->start(std::move(spec));
  ASSERT_TRUE(started);
  RunningProcess& process = **started;
  std::thread interrupter([&] {
    eventually([&] { return ready.load(); });
    process.interrupt();
  });
  auto status = process.wait();
  interrupter.join();
  ASSERT_TRUE(status);
  EXPECT_EQ(status->exit_code, 130);
  EXPECT_TRUE(status->interrupted);
  EXPECT_TRUE(reaped(process.pid()));
}

TEST(ChildProcess, GrandchildrenAreStoppedWithTheChild) {
  // The grandchild ignores SIGINT (set up before "ready", so no race) and holds the stdout
  // pipe: only the kill of the whole process group after the child exits stops it (and lets
  // wait() return).
  TempDir dir;
  Captured captured;
  ProcessSpec spec = spec_for({dir.script("p",
                                          "sh -c 'trap \"\" INT; echo $$ > grandchild.pid; exec sleep 1000' &\n"
                                          "while [ ! -s grandchild.pid ]; do sleep 0.01; done\n"
                                          "trap 'exit 130' INT; echo ready; while :; do sleep 1; done")
                                   .string()},
                              captured);
  spec.cwd = dir.path();
  auto status = run(std::move(spec), "ready");
  ASSERT_TRUE(status);
  EXPECT_EQ(status->exit_code, 130);
  const pid_t grandchild = read_pid(dir, "grandchild.pid");
  ASSERT_GT(grandchild, 0);
  EXPECT_TRUE(eventually([&] { return process_gone(grandchild); }));
}

TEST(ChildProcess, LeftoversAreStoppedWhenTheChildExitsOnItsOwn) {
  TempDir dir;
  Captured captured;
  ProcessSpec spec =
      spec_for({dir.script("p", "sleep 1000 & echo $! > grandchild.pid; echo done; exit 0").string()}, captured);
  spec.cwd = dir.path();
  auto status = run(std::move(spec));
  ASSERT_TRUE(status);
  EXPECT_EQ(status->exit_code, 0);
  EXPECT_FALSE(status->interrupted);
  EXPECT_EQ(captured.out, (std::vector<std::string>{"done"}));
  const pid_t grandchild = read_pid(dir, "grandchild.pid");
  ASSERT_GT(grandchild, 0);
  EXPECT_TRUE(eventually([&] { return process_gone(grandchild); }));
}

TEST(ChildProcess, ADescendantOutsideTheGroupDoesNotHoldWaitForever) {
  // setsid puts the grandchild in its own session: it keeps the stdout pipe open and cannot
  // be reached through the group; wait() stops reading after drain_timeout.
  TempDir dir;
  Captured captured;
  ProcessSpec spec =
      spec_for({dir.script("p", "setsid sleep 1000 & echo $! > escaped.pid; echo done; exit 5").string()}, captured);
  spec.cwd = dir.path();
  spec.drain_timeout = milliseconds(200);
  auto status = run(std::move(spec));
  const pid_t escaped = read_pid(dir, "escaped.pid");
  if (escaped > 0) ::kill(escaped, SIGKILL);
  ASSERT_TRUE(status);
  EXPECT_EQ(status->exit_code, 5);
  EXPECT_EQ(captured.out, (std::vector<std::string>{"done"}));
}

TEST(ChildProcess, DestroyingAProcessNotWaitedForKillsItsGroup) {
  TempDir dir;
  auto launcher = make_process_launcher({});
  ProcessSpec spec;
  spec.argv = {dir.script("p", "sleep 1000 & echo $! > grandchild.pid; while :; do sleep 1; done").string()};
  spec.cwd = dir.path();
  auto started = launcher->start(std::move(spec));
  ASSERT_TRUE(started);
  const pid_t child = (*started)->pid();
  const pid_t grandchild = read_pid(dir, "grandchild.pid");
  ASSERT_GT(grandchild, 0);
  started->reset();
  EXPECT_TRUE(reaped(child));
  EXPECT_TRUE(eventually([&] { return process_gone(grandchild); }));
}

TEST(ChildProcess, ASignalIgnoredByOdsIsDefaultAgainInTheChild) {
  // A shell starts background jobs with SIGINT ignored; dbt must still stop on it.
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  struct sigaction previous {};
  ASSERT_EQ(::sigaction(SIGINT, &ignore, &previous), 0);
  auto launcher = make_process_launcher({});
  auto started = launcher->start(spec_of({"sleep", "1000"}));  // found on PATH
  ::sigaction(SIGINT, &previous, nullptr);
  ASSERT_TRUE(started) << started.error().message;
  (*started)->interrupt();
  auto status = (*started)->wait();
  ASSERT_TRUE(status);
  EXPECT_EQ(status->term_signal, SIGINT);
  EXPECT_EQ(status->last_signal_sent, SIGINT);
}

TEST(ChildProcess, InterruptAfterTheEndChangesNothing) {
  TempDir dir;
  auto launcher = make_process_launcher({});
  auto started = launcher->start(spec_of({dir.script("p", "exit 0").string()}));
  ASSERT_TRUE(started);
  auto status = (*started)->wait();
  (*started)->interrupt();
  ASSERT_TRUE(status);
  EXPECT_EQ(status->exit_code, 0);
  EXPECT_FALSE(status->interrupted);
  EXPECT_TRUE(reaped((*started)->pid()));
}

}  // namespace
}  // namespace ods::process
