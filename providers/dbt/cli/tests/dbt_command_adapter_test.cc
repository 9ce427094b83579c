// run_dbt_command, the runner's dbt session's one way to run dbt, over a real child process
// (fake dbt scripts).
#include "ods/dbt/cli/dbt_command_adapter.h"

#include <gtest/gtest.h>

#include <fstream>

#include "event_fixtures.h"
#include "process/tests/test_programs.h"

namespace ods::dbt {
namespace {

namespace fs = std::filesystem;
using process::testing::TempDir;
using testing::fixture_path;

DbtInvocationOptions options_for(const TempDir& dir, fs::path dbt, std::vector<std::string> args) {
  DbtInvocationOptions options;
  options.dbt = std::move(dbt);
  options.args = std::move(args);
  options.project_dir = dir.path();
  options.profiles_dir = dir.path() / "profiles";
  return options;
}

TEST(DbtCommandAdapter, ReturnsTheEventLinesAndDbtsErrorText) {
  TempDir dir;
  auto launcher = process::make_process_launcher({});
  fs::path dbt =
      dir.script("dbt", "printf '%s\\n' \"$@\" > '" + (dir.path() / "args").string() + "'\necho plain\ncat '" +
                            fixture_path("build_model_error.jsonl").string() + "'\nexit 1");
  auto result = run_dbt_command(*launcher, options_for(dir, dbt, {"show", "--inline", "select 1"}));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->exit_code, 1);
  EXPECT_FALSE(result->interrupted);
  EXPECT_EQ(result->events, testing::fixture_lines("build_model_error.jsonl"));  // "plain" is not an event
  EXPECT_NE(result->error_text.find("nonexistent_table_xyz"), std::string::npos) << result->error_text;
  EXPECT_EQ(dir.read("args"), "--log-format\njson\nshow\n--inline\nselect 1\n--profiles-dir\n" +
                                  (dir.path() / "profiles").string() + "\n");
}

TEST(DbtCommandAdapter, AMissingDbtIsDbtNotFound) {
  TempDir dir;
  auto launcher = process::make_process_launcher({});
  auto result = run_dbt_command(*launcher, options_for(dir, dir.path() / "missing-dbt", {"show"}));
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, "dbt_not_found");
  EXPECT_NE(result.error().message.find("missing-dbt"), std::string::npos);
}

TEST(DbtCommandAdapter, AnInterruptedRunSaysSo) {
  TempDir dir;
  auto launcher = process::make_process_launcher({});
  auto result = run_dbt_command(
      *launcher,
      options_for(dir, dir.script("dbt", "cat '" + fixture_path("build_interrupted.jsonl").string() + "'\nexit 2"),
                  {"build"}));
  ASSERT_TRUE(result);
  EXPECT_TRUE(result->interrupted);
  EXPECT_EQ(result->exit_code, 2);
}

// The call's cost besides its nodes (what one more call costs) is told apart from the nodes'
// own time: dbt's start before the first node and its end after the last are not node time.
// The fake dbt waits 1 s before its first node starts, 1 s after the adapter saw that start, and
// 1 s after the adapter saw the last result (files the progress callback writes, polled by the
// script): so each second passes in the adapter's own reading, however late a loaded machine reads.
TEST(DbtCommandAdapter, TellsTheCallsOwnTimeFromItsNodesTime) {
  TempDir dir;
  auto launcher = process::make_process_launcher({});
  const std::string events = fixture_path("build_success.jsonl").string();
  const std::string seen = (dir.path() / "seen-").string();
  const std::string wait_for =
      "i=0; until [ -e '" + seen + "'\"$1\" ]; do i=$((i+1)); [ $i -gt 1200 ] && exit 9; sleep 0.05; done";
  fs::path dbt =
      dir.script("dbt", "seen() { " + wait_for + "; }\nsed -n 1,7p '" + events + "'\nsleep 1\nsed -n 8,9p '" + events +
                            "'\nseen started\nsleep 1\nsed -n 10,45p '" + events +
                            "'\nseen finished\nsleep 1\nsed -n 46,51p '" + events + "'");
  int results = 0;  // the fixture's node results: the last is at line 45
  for (const std::string& line : testing::fixture_lines("build_success.jsonl"))
    results += line.find("Result\"") != std::string::npos ? 1 : 0;
  auto touch = [&](const std::string& what) { std::ofstream(seen + what).put('\n'); };
  auto result = run_dbt_command(*launcher, options_for(dir, dbt, {"build"}), [&](const DbtProgress& progress) {
    if (progress.started() > 0) touch("started");
    if (progress.finished() == results) touch("finished");
  });
  ASSERT_TRUE(result) << result.error().message;
  ASSERT_EQ(result->exit_code, 0) << "the adapter never saw the start or the last result (exit 9)";
  EXPECT_GE(result->node_seconds, 1);                    // the 1 s between the first start and the last result
  EXPECT_GE(result->seconds - result->node_seconds, 2);  // the 1 s before them and the 1 s after
}

TEST(DbtCommandAdapter, ACallThatRanNoNodeHasNoNodeTime) {
  TempDir dir;
  auto launcher = process::make_process_launcher({});
  fs::path dbt = dir.script("dbt", "sleep 0.2\necho plain");
  auto result = run_dbt_command(*launcher, options_for(dir, dbt, {"show"}));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->node_seconds, 0);
  EXPECT_GE(result->seconds, 0.2);
}

}  // namespace
}  // namespace ods::dbt
