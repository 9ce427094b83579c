// `ods pod` reads every variable its runner Job sets (ods/callback/pod_environment.h lists them;
// operator/control's run_reconciler_test checks that the Job sets only listed names), and
// --run-tests / $ODS_RUN_TESTS (pod_environment.h).
#include "pod_environment.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "child_environment.h"
#include "commands.h"
#include "digest_key.h"
#include "flag_names.h"
#include "ods/callback/pod_environment.h"

namespace ods::cli {
namespace {

namespace pod_env = callback::pod_env;

// Every listed variable set to a value of its own ("value of NAME"; the digest key long enough).
Environment every_variable_set() {
  Environment env;
  env.getenv = [](const std::string& name) {
    if (name == pod_env::kDigestKey) return std::string("a-digest-key-of-32-bytes-0123456");
    for (const auto& variable : pod_env::kRunnerPodVariables)
      if (variable.name == name) return "value of " + name;
    return std::string();
  };
  env.is_set = [env_get = env.getenv](const std::string& name) { return !env_get(name).empty(); };
  return env;
}

TEST(PodEnvironment, EachNameIsListedOnceAndEachFlagIsAnOdsPodFlag) {
  const auto flags = pod_flags();
  std::map<std::string_view, int> seen;
  for (const auto& variable : pod_env::kRunnerPodVariables) {
    EXPECT_EQ(++seen[variable.name], 1) << variable.name;
    EXPECT_EQ(variable.reader == pod_env::Reader::pod_flag, !variable.pod_flag.empty()) << variable.name;
    if (variable.pod_flag.empty()) continue;
    auto spec = std::ranges::find_if(flags, [&](const FlagSpec& f) { return f.name == variable.pod_flag; });
    ASSERT_NE(spec, flags.end()) << variable.pod_flag << " is not a flag of ods pod";
    EXPECT_NE(spec->help.find("$" + std::string(variable.name)), std::string::npos)
        << variable.pod_flag << "'s help does not name $" << variable.name;
  }
}

TEST(PodEnvironment, OdsPodReadsEveryVariableTheJobSets) {
  const Environment env = every_variable_set();
  ParsedArgs args;
  default_pod_flags(args, env);
  const auto git = pod_git_source(env, "/work/source/models");
  ASSERT_TRUE(git);
  const auto key = load_digest_key(env);
  ASSERT_TRUE(key) << key.error().message;
  const Environment dbt_sees = child_view(env);
  for (const auto& variable : pod_env::kRunnerPodVariables) {
    const std::string name(variable.name);
    const std::string value = env.getenv(name);
    switch (variable.reader) {
      case pod_env::Reader::pod_flag:
        EXPECT_EQ(args.get(std::string(variable.pod_flag)), value) << name;
        break;
      case pod_env::Reader::git_checkout: {
        // ODS_GIT_PATH is one folder here: the checkout is the project dir's parent (unread: the dir itself).
        const std::map<std::string_view, std::string> read{
            {pod_env::kGitUrl, git->url},
            {pod_env::kGitRevision, git->revision},
            {pod_env::kGitCredentialsDir, git->credentials_dir.string()}};
        if (variable.name == pod_env::kGitPath) {
          EXPECT_EQ(git->checkout, "/work/source") << name;
        } else {
          ASSERT_TRUE(read.contains(variable.name)) << name << ": the test does not know what reads it";
          EXPECT_EQ(read.at(variable.name), value) << name;
        }
        break;
      }
      case pod_env::Reader::digest_key:
        ASSERT_TRUE(key->has_value()) << name;
        EXPECT_EQ((*key)->bytes, value) << name;
        break;
      case pod_env::Reader::dbt:
        EXPECT_EQ(dbt_sees.getenv(name), value) << name << " is withheld from dbt";
        break;
    }
  }
}

TEST(PodEnvironment, AFlagWinsOverItsVariableAndAnEmptyVariableSetsNothing) {
  Environment env;
  env.getenv = [](const std::string& name) { return name == pod_env::kTarget ? "prod" : ""; };
  ParsedArgs args;
  args.flags[kFlagTarget] = "dev";
  default_pod_flags(args, env);
  EXPECT_EQ(args.get(kFlagTarget), "dev");
  EXPECT_FALSE(args.has(kFlagSelect));
  EXPECT_FALSE(pod_git_source(env, "/p"));
}

TEST(PodEnvironment, RunTestsIsTrueUnlessFalseAndRefusesOtherWords) {
  auto with = [](std::string value) {
    Environment env;
    env.getenv = [value](const std::string& name) { return name == pod_env::kRunTests ? value : ""; };
    return env;
  };
  const ParsedArgs none;
  EXPECT_EQ(pod_runs_tests(none, with("")), true);
  EXPECT_EQ(pod_runs_tests(none, with("true")), true);
  EXPECT_EQ(pod_runs_tests(none, with("false")), false);
  ParsedArgs flag;
  flag.flags[kFlagRunTests] = "true";
  EXPECT_EQ(pod_runs_tests(flag, with("false")), true);  // the flag wins
  const auto refused = pod_runs_tests(none, with("no"));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, "usage");
  EXPECT_NE(refused.error().message.find("$ODS_RUN_TESTS"), std::string::npos);
  EXPECT_NE(refused.error().message.find("'no'"), std::string::npos);
}

}  // namespace
}  // namespace ods::cli
