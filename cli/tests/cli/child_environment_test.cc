// ODS's secrets and the processes it starts (child_environment.h, context.h): the list, the
// view dbt's environment is fingerprinted through, and what ODS's own process keeps of them.
#include "child_environment.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace ods::cli {
namespace {

TEST(ChildEnvironment, TheListNamesTheStateUrlTheDigestKeyTheTokenAndTheGitSecret) {
  const std::vector<std::string> expected{"ODS_STATE", "ODS_DIGEST_KEY", "ODS_RUN_TOKEN_FILE",
                                          "ODS_GIT_CREDENTIALS_DIR"};
  EXPECT_EQ(secret_variables(), expected);
}

// The values stay ODS's (the returned Environment), the process's own environment loses them
// (children, and /proc/<pid>/environ, which shows the bytes the value occupied, now zeros).
TEST(ChildEnvironment, ProcessEnvironmentKeepsTheSecretsForOdsAndTakesThemOutOfTheProcess) {
  const std::string url = "postgresql://u:pw-Secret@h/db";
  ::setenv("ODS_STATE", url.c_str(), 1);
  ::setenv("ODS_DIGEST_KEY", "", 1);  // set, and empty
  ::setenv("ODS_TEST_OTHER", "stays", 1);
  ::unsetenv("ODS_RUN_TOKEN_FILE");
  char* before = std::getenv("ODS_STATE");
  const Environment env = process_environment();
  EXPECT_EQ(std::string(before, url.size()), std::string(url.size(), '\0'));
  EXPECT_EQ(std::getenv("ODS_STATE"), nullptr);
  EXPECT_EQ(std::getenv("ODS_DIGEST_KEY"), nullptr);
  EXPECT_EQ(env.getenv("ODS_STATE"), url);
  EXPECT_TRUE(env.is_set("ODS_DIGEST_KEY"));
  EXPECT_EQ(env.getenv("ODS_DIGEST_KEY"), "");
  EXPECT_FALSE(env.is_set("ODS_RUN_TOKEN_FILE"));
  EXPECT_EQ(env.getenv("ODS_TEST_OTHER"), "stays");
  EXPECT_NE(std::getenv("ODS_TEST_OTHER"), nullptr);
  ::unsetenv("ODS_TEST_OTHER");
}

TEST(ChildEnvironment, TheStateUrlFlagsValuesAreOverwrittenInArgv) {
  std::vector<std::string> text{
      "ods",     "state",       "copy",     "--from", "postgresql://a:pw1@h/db", "--to=postgresql://b:pw2@h/db",
      "--state", "sqlite:x.db", "--target", "prod"};
  std::vector<char*> argv;
  for (auto& t : text) argv.push_back(t.data());
  hide_secret_arguments(static_cast<int>(argv.size()), argv.data());
  EXPECT_EQ(std::string(argv[4]), "");
  EXPECT_EQ(std::string(argv[5]), "--to=");
  EXPECT_EQ(std::string(argv[7]), "");
  for (int i : {0, 1, 2, 3, 6, 8, 9}) EXPECT_EQ(std::string(argv[i]), text[i]) << i;
  EXPECT_EQ(text[4].find("pw1"), std::string::npos);
  EXPECT_EQ(text[5].find("pw2"), std::string::npos);
}

}  // namespace
}  // namespace ods::cli
