// run_dbt_command, the runner's dbt session's one way to run dbt, over a real child process
// (fake dbt scripts).
#include "ods/dbt/cli/dbt_command_adapter.h"

#include <gtest/gtest.h>

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
// Sleeps of 1 s, bounds with 0.5 s to spare: a loaded machine delays the reading of a line,
// never its writing.
TEST(DbtCommandAdapter, TellsTheCallsOwnTimeFromItsNodesTime) {
  TempDir dir;
  auto launcher = process::make_process_launcher({});
  const std::string events = fixture_path("build_success.jsonl").string();
  fs::path dbt =
      dir.script("dbt", "sed -n 1,7p '" + events + "'\nsleep 1\nsed -n 8,9p '" + events +
                            "'\nsleep 1\nsed -n 10,45p '" + events + "'\nsleep 1\nsed -n 46,51p '" + events + "'");
  auto result = run_dbt_command(*launcher, options_for(dir, dbt, {"build"}));
  ASSERT_TRUE(result) << result.error().message;
  ASSERT_EQ(result->exit_code, 0);
  EXPECT_GE(result->node_seconds, 0.5);                    // the 1 s between the first start and the last result
  EXPECT_GE(result->seconds - result->node_seconds, 1.5);  // the 1 s before them and the 1 s after
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
