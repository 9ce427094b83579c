// The driver launcher over a fake driver: a shell script standing in for `python -c <driver>`
// that speaks the driver's protocol (first what dbt offers, {"ods_driver": {"dbt_version": ...}};
// then a JSON request per stdin line; events, then {"ods_driver": {"exit_code": N}} on stdout).
#include "ods/dbt/cli/dbt_driver.h"

#include <gtest/gtest.h>

#include <thread>

#include "event_fixtures.h"
#include "ods/dbt/cli/dbt_command_adapter.h"
#include "ods/dbt/cli/dbt_invocation.h"
#include "process/tests/test_programs.h"

namespace ods::dbt {
namespace {

namespace fs = std::filesystem;
using process::testing::TempDir;
using testing::fixture_path;

DbtInvocationOptions options_for(const TempDir& dir, std::vector<std::string> args) {
  DbtInvocationOptions options;
  options.dbt = dir.path() / "dbt";  // not run: the driver runs the commands
  options.args = std::move(args);
  options.project_dir = dir.path();
  options.forward_interrupts = false;
  return options;
}

// What the real driver says first about a dbt whose manifest it keeps.
const std::string kReady =
    R"(echo '{"ods_driver": {"dbt_version": "1.10.15", "manifest_schema": "v12", "keep_manifest": true}}')"
    "\n";

// A fake driver that logs each start and each request, then answers every request with the
// events of `fixture` and exit code `code`.
fs::path answering_driver(const TempDir& dir, const std::string& fixture, int code) {
  const std::string d = dir.path().string();
  return dir.script("python", kReady + "echo started >> '" + d +
                                  "/starts'\nwhile IFS= read -r line; do\n  echo \"$line\" >> '" + d +
                                  "/requests'\n  cat '" + fixture_path(fixture).string() +
                                  "'\n  echo '{\"ods_driver\": {\"exit_code\": " + std::to_string(code) +
                                  "}}'\ndone\necho bye >> '" + d + "/starts'");
}

TEST(DbtDriver, RunsEveryCommandInOneDriverProcess) {
  TempDir dir;
  auto real = process::make_process_launcher({});
  {
    auto driver = make_dbt_driver_launcher(*real, answering_driver(dir, "build_success.jsonl", 0));
    EXPECT_FALSE(driver->keeps_manifest()) << "nothing is known before the first command";
    for (const char* subcommand : {"compile", "show", "build"}) {
      auto result = run_dbt_command(*driver, options_for(dir, {subcommand, "--select", "x y"}));
      ASSERT_TRUE(result) << result.error().message;
      EXPECT_EQ(result->exit_code, 0) << result->error_text;
      EXPECT_EQ(result->events, testing::fixture_lines("build_success.jsonl"));
      EXPECT_TRUE(driver->keeps_manifest()) << subcommand;
    }
  }
  EXPECT_EQ(dir.read("starts"), "started\nbye\n");  // one driver, told to exit at the end
  const std::string requests = dir.read("requests");
  EXPECT_NE(
      requests.find(R"({"args":["--log-format","json","compile","--select","x y"],"cwd":")" + dir.path().string()),
      std::string::npos)
      << requests;
  EXPECT_NE(requests.find(R"("env":{"PYTHONUNBUFFERED":"1"})"), std::string::npos) << requests;
  EXPECT_NE(requests.find(R"("build","--select")"), std::string::npos) << requests;
}

TEST(DbtDriver, ACommandThatFailsReportsDbtsErrorText) {
  TempDir dir;
  auto real = process::make_process_launcher({});
  auto driver = make_dbt_driver_launcher(*real, answering_driver(dir, "build_model_error.jsonl", 1));
  auto result = run_dbt_command(*driver, options_for(dir, {"build"}));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->exit_code, 1);
  EXPECT_FALSE(result->interrupted);
  EXPECT_NE(result->error_text.find("nonexistent_table_xyz"), std::string::npos) << result->error_text;
  // The driver is still there for the next command.
  auto again = run_dbt_command(*driver, options_for(dir, {"build"}));
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->exit_code, 1);
}

TEST(DbtDriver, ADriverThatDiesFailsTheCommandWithItsOutputAndRunsNoMore) {
  TempDir dir;
  auto real = process::make_process_launcher({});
  fs::path python = dir.script("python", kReady + "read -r line\necho 'Traceback: MemoryError in dbt' >&2\nexit 3");
  auto driver = make_dbt_driver_launcher(*real, python);
  auto result = run_dbt_command(*driver, options_for(dir, {"compile"}));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->exit_code, 3);
  EXPECT_NE(result->error_text.find("MemoryError in dbt"), std::string::npos) << result->error_text;
  auto next = run_dbt_command(*driver, options_for(dir, {"build"}));
  ASSERT_FALSE(next);
  EXPECT_EQ(next.error().code, "spawn_failed");
  EXPECT_NE(next.error().message.find("driver has ended"), std::string::npos) << next.error().message;
}

TEST(DbtDriver, ADriverThatCannotImportDbtIsAnErrorWithWhatItPrinted) {
  TempDir dir;
  auto real = process::make_process_launcher({});
  auto driver = make_dbt_driver_launcher(*real, dir.script("python", "echo 'ModuleNotFoundError: dbt' >&2\nexit 1"));
  for (int i = 0; i < 2; ++i) {
    auto result = run_dbt_command(*driver, options_for(dir, {"compile"}));
    ASSERT_FALSE(result);
    EXPECT_EQ(result.error().code, "dbt_failed");
    EXPECT_NE(result.error().message.find("ModuleNotFoundError: dbt"), std::string::npos) << result.error().message;
  }
}

TEST(DbtDriver, AnUnsupportedDbtIsRefusedWithTheDriversMessage) {
  TempDir dir;
  auto real = process::make_process_launcher({});
  fs::path python =
      dir.script("python", R"(echo '{"ods_driver": {"dbt_version": "1.7.20", "refused": "dbt-core 1.7.20 is not )"
                           R"(supported: ODS supports dbt-core 1.8 to 1.12"}}')"
                           "\nexit 2");
  auto driver = make_dbt_driver_launcher(*real, python);
  for (int i = 0; i < 2; ++i) {  // the first command and every later one
    auto result = run_dbt_command(*driver, options_for(dir, {"compile"}));
    ASSERT_FALSE(result);
    EXPECT_EQ(result.error().code, "unsupported_dbt");
    EXPECT_EQ(result.error().message, "dbt-core 1.7.20 is not supported: ODS supports dbt-core 1.8 to 1.12");
  }
  EXPECT_FALSE(driver->keeps_manifest());
}

TEST(DbtDriver, WhenTheDriverCannotKeepTheManifestEachCommandIsItsOwnDbtProcessSaidOnce) {
  TempDir dir;
  auto real = process::make_process_launcher({});
  const std::string d = dir.path().string();
  fs::path python =
      dir.script("python", "echo started >> '" + d +
                               "/starts'\n"
                               R"(echo '{"ods_driver": {"dbt_version": "1.99.0", "keep_manifest": false, )"
                               R"("why": "compiled nodes have fields the driver does not know how to reset: x"}}')");
  std::vector<std::string> notices;
  auto driver = make_dbt_driver_launcher(*real, python, [&](const std::string& n) { notices.push_back(n); });
  DbtInvocationOptions options = options_for(dir, {});
  options.dbt = dir.script(
      "dbt", "echo \"$@\" >> '" + d + "/dbt-calls'\ncat '" + fixture_path("build_success.jsonl").string() + "'");
  for (const char* subcommand : {"compile", "build"}) {
    options.args = {subcommand};
    auto result = run_dbt_command(*driver, options);
    ASSERT_TRUE(result) << result.error().message;
    EXPECT_EQ(result->exit_code, 0) << result->error_text;
    EXPECT_EQ(result->events, testing::fixture_lines("build_success.jsonl"));
  }
  EXPECT_EQ(notices, std::vector<std::string>{"dbt 1.99.0: compiled nodes have fields the driver does not know how to "
                                              "reset: x; running one dbt process per command"});
  EXPECT_FALSE(driver->keeps_manifest()) << "each command parsed the project itself";
  EXPECT_EQ(dir.read("starts"), "started\n");
  const std::string calls = dir.read("dbt-calls");
  EXPECT_NE(calls.find("--log-format json compile"), std::string::npos) << calls;
  EXPECT_NE(calls.find("--log-format json build"), std::string::npos) << calls;
}

TEST(DbtDriver, AMissingInterpreterIsDbtNotFound) {
  TempDir dir;
  auto real = process::make_process_launcher({});
  auto driver = make_dbt_driver_launcher(*real, dir.path() / "no-python");
  auto result = run_dbt_command(*driver, options_for(dir, {"compile"}));
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, "dbt_not_found");
}

TEST(DbtDriver, AnInterruptedCommandIsInterruptedAndEndsTheDriver) {
  TempDir dir;
  auto real = process::make_process_launcher({});
  const std::string d = dir.path().string();
  // Starts a node, then waits; on SIGINT reports dbt's interrupted summary and exits, as the
  // real driver does after a KeyboardInterrupt.
  fs::path python = dir.script(
      "python", kReady + "echo $$ > '" + d + "/pid'\ntrap 'cat \"" + fixture_path("build_interrupted.jsonl").string() +
                    "\"; echo \"{\\\"ods_driver\\\": {\\\"exit_code\\\": 2}}\"; exit 2' INT\nread -r line\n"
                    "echo '{\"info\": {\"name\": \"LogStartLine\", \"level\": \"info\", \"msg\": \"1 of 2 START\", "
                    "\"invocation_id\": \"i\"}, \"data\": {\"index\": 1, \"total\": 2}}'\nsleep 60 &\nwait $!\n");
  auto driver = make_dbt_driver_launcher(*real, python);
  DbtInvocationOptions options;
  options.dbt = dir.path() / "dbt";
  options.args = {"build"};
  options.project_dir = dir.path();
  DbtInvocation build(*driver, options);
  build.set_event_callback([&](const DbtEvent& e) {
    if (e.name == "LogStartLine") build.interrupt();
  });
  auto result = build.run();
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->outcome, DbtOutcome::interrupted) << result->error_text();
  EXPECT_TRUE(result->exit.interrupted);
  const pid_t pid = process::testing::read_pid(dir, "pid");
  EXPECT_TRUE(process::testing::eventually([&] { return process::testing::process_gone(pid); }));
  auto next = run_dbt_command(*driver, options_for(dir, {"build"}));
  ASSERT_FALSE(next);
  EXPECT_EQ(next.error().code, "spawn_failed");
}

TEST(DbtDriver, OnlyDbtCoresConsoleScriptIsRunByTheDriver) {
  TempDir dir;
  const fs::path python = dir.script("python3", "exit 0");
  const fs::path pip_script = dir.write("dbt", "#!" + python.string() +
                                                   "\nimport re\nimport sys\nfrom dbt.cli.main import cli\n"
                                                   "if __name__ == '__main__':\n    sys.exit(cli())\n");
  EXPECT_EQ(console_script_python(pip_script), python);
  EXPECT_EQ(console_script_python(dir.write("wrapper.py", "#!" + python.string() + "\nimport subprocess\n")),
            std::nullopt);
  EXPECT_EQ(console_script_python(dir.script("dbt.sh", "exec dbt \"$@\"")), std::nullopt);
  EXPECT_EQ(console_script_python(dir.write("env", "#!/usr/bin/env python3\nfrom dbt.cli.main import cli\n")),
            std::nullopt);
  EXPECT_EQ(console_script_python(dir.path() / "missing"), std::nullopt);
  EXPECT_NE(dbt_driver_source().find("dbtRunner(manifest=...)"), std::string_view::npos);
}

}  // namespace
}  // namespace ods::dbt
