// The CI files are valid for their systems: @action-validator/cli accepts ci/github/action.yml and
// every example workflow (and refuses a broken copy, so the check can fail); gitlab-ci-local parses,
// schema-validates, expands (--preview) and lists (--list) the GitLab template and the example.
// The action's run steps take inputs through env:, never pasted into a script.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include "ci_fixture.h"

namespace ods::testing {
namespace {

namespace fs = std::filesystem;

ProcessResult validate_action(const fs::path& file) {
  return run_process({(npm_tools_bin() / "action-validator").string(), file.string()}, file.parent_path());
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

TEST(CiLint, ActionValidatorAcceptsTheActionAndEveryExampleWorkflow) {
  ProcessResult action = validate_action(ci_source_dir() / "github" / "action.yml");
  EXPECT_EQ(action.exit_code, 0) << action.output << action.errors;
  int examples = 0;
  for (const auto& e : fs::directory_iterator(ci_source_dir() / "github" / "examples")) {
    if (e.path().extension() != ".yml") continue;
    ++examples;
    ProcessResult r = validate_action(e.path());
    EXPECT_EQ(r.exit_code, 0) << e.path() << "\n" << r.output << r.errors;
  }
  EXPECT_EQ(examples, 3);
}

TEST(CiLint, ActionValidatorRefusesARunStepWithoutShell) {
  TempDir dir("lint");
  std::string text = slurp(ci_source_dir() / "github" / "action.yml");
  text = std::regex_replace(text, std::regex("\n      shell: bash"), "", std::regex_constants::format_first_only);
  std::ofstream(dir.path() / "action.yml") << text;
  ProcessResult r = validate_action(dir.path() / "action.yml");
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE((r.output + r.errors).find("shell"), std::string::npos) << r.output << r.errors;
}

TEST(CiLint, RunStepsTakeInputsThroughEnvOnly) {
  const std::string text = slurp(ci_source_dir() / "github" / "action.yml");
  std::regex run_line("\n      run: ([^\n]*)");
  int runs = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), run_line); it != std::sregex_iterator(); ++it) {
    ++runs;
    EXPECT_EQ((*it)[1].str().find("${{"), std::string::npos) << "an expression pasted into a script: " << (*it)[1];
  }
  EXPECT_GE(runs, 4);
  EXPECT_EQ(text.find("run: |"), std::string::npos) << "step logic belongs in ci/common, not inline YAML";
}

// gitlab-ci-local on a git repository holding `pipeline` as .gitlab-ci.yml and the template.
ProcessResult gitlab_ci_local(const std::string& pipeline, const std::vector<std::string>& args) {
  TempDir repo("glrepo");
  fs::create_directories(repo.path() / "ci");
  fs::copy(ci_source_dir() / "gitlab", repo.path() / "ci" / "gitlab", fs::copy_options::recursive);
  std::ofstream(repo.path() / ".gitlab-ci.yml") << pipeline;
  git(repo.path(), {"init", "-q", "-b", "main"});
  git(repo.path(), {"add", "-A"});
  git(repo.path(), {"commit", "-qm", "pipeline"});
  std::vector<std::string> argv{(npm_tools_bin() / "gitlab-ci-local").string(), "--no-color"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, repo.path(), {"HOME=" + repo.path().string()});
}

std::string example_with_local_include() {
  std::string text = slurp(ci_source_dir() / "gitlab" / "examples" / ".gitlab-ci.yml");
  // The example includes the template from where ODS is published; here it is the local copy.
  text = std::regex_replace(text, std::regex("- remote: [^\n]*"), "- local: ci/gitlab/ods.gitlab-ci.yml");
  return text;
}

TEST(CiLint, GitLabCiLocalExpandsAndListsTheTemplateAndTheExample) {
  const std::string example = example_with_local_include();
  ProcessResult preview = gitlab_ci_local(example, {"--preview"});
  ASSERT_EQ(preview.exit_code, 0) << preview.output << preview.errors;
  // The jobs got the template's script, cache and dotenv report through extends.
  EXPECT_NE(preview.output.find("ods-state-$CI_MERGE_REQUEST_TARGET_BRANCH_NAME"), std::string::npos) << preview.output;
  EXPECT_NE(preview.output.find("dotenv: ods-ci/ods.env"), std::string::npos) << preview.output;
  EXPECT_NE(preview.output.find("ods_ci.py"), std::string::npos);

  ProcessResult list = gitlab_ci_local(example, {"--list-all", "--variable", "CI_PIPELINE_SOURCE=merge_request_event"});
  ASSERT_EQ(list.exit_code, 0) << list.output << list.errors;
  for (const char* job : {"ods-plan", "ods-run", "ods-report"})
    EXPECT_NE(list.output.find(job), std::string::npos) << job << "\n" << list.output;

  // The template alone, with one job of each kind.
  ProcessResult bare = gitlab_ci_local(
      "include:\n  - local: ci/gitlab/ods.gitlab-ci.yml\np:\n  extends: .ods-plan\nr:\n  extends: .ods-run\n"
      "t:\n  extends: .ods-test\n",
      {"--list"});
  ASSERT_EQ(bare.exit_code, 0) << bare.output << bare.errors;
}

TEST(CiLint, GitLabCiLocalRefusesABrokenTemplate) {
  ProcessResult broken = gitlab_ci_local(
      "include:\n  - local: ci/gitlab/ods.gitlab-ci.yml\np:\n  extends: .ods-plan\n  cache:\n    policy: sometimes\n",
      {"--list"});
  EXPECT_NE(broken.exit_code, 0) << broken.output;
  EXPECT_NE((broken.output + broken.errors).find("policy"), std::string::npos) << broken.output << broken.errors;
}

}  // namespace
}  // namespace ods::testing
