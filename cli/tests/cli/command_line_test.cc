// The `ods` command line in-process (run_cli), where no dbt is needed: help, and the state
// commands that read a state file (issue 39, items 5 and 6).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "commands.h"
#include "exit_codes.h"

namespace ods::cli {
namespace {

namespace fs = std::filesystem;

struct Ran {
  int code = 0;
  std::string out, err;
};

Ran ods(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  Environment env;
  env.getenv = [](const std::string&) { return std::string(); };
  Ran r;
  r.code = run_cli(args, out, err, env);
  r.out = out.str();
  r.err = err.str();
  return r;
}

TEST(CommandLine, StateHelpListsTheStateCommands) {
  for (const std::string flag : {"--help", "-h"}) {
    const Ran r = ods({"state", flag});
    EXPECT_EQ(r.code, kExitOk) << flag << ": " << r.err;
    EXPECT_NE(r.out.find("usage: ods state <command>"), std::string::npos) << flag << ": " << r.out;
    for (const auto& c : state_commands()) EXPECT_NE(r.out.find("  " + c.name), std::string::npos) << c.name;
    EXPECT_EQ(r.err, "") << flag;
  }
}

TEST(CommandLine, AnUnknownStateCommandIsStillAUsageError) {
  const Ran r = ods({"state", "--nosuch"});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.err.find("unknown command 'state --nosuch'"), std::string::npos) << r.err;
}

// A project directory with dbt_project.yml and nothing recorded (no .ods/state.db).
fs::path project_without_state() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const fs::path dir = fs::path(::testing::TempDir()) / "ods_command_line" / info->name();
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "dbt_project.yml") << "name: shop\nprofile: shop\n";
  return dir;
}

TEST(CommandLine, HistoryWithoutAStateFileIsAnErrorNamingThePath) {
  const fs::path dir = project_without_state();
  const Ran r = ods({"state", "history", "--project-dir", dir.string()});
  EXPECT_EQ(r.code, kExitFailed) << r.out;
  EXPECT_NE(r.err.find((dir / ".ods" / "state.db").string()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("`ods state run` records a first state"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / ".ods")) << "reading created the store";
}

}  // namespace
}  // namespace ods::cli
