// The CI files are valid for their systems: @action-validator/cli accepts ci/github/action.yml and
// every example workflow (and refuses a broken copy, so the check can fail); gitlab-ci-local parses,
// schema-validates, expands (--preview) and lists (--list) the GitLab component and the example,
// and includes the component as a component with inputs. The action's run steps take inputs through
// env:, never pasted into a script; every output a step writes is declared; the examples carry a
// concurrency group, the plan a fork guard, and the GitLab example's remote include the digest of
// the template it names.
#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <regex>
#include <set>

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

// The release workflow can't run here (it publishes); it is at least a valid workflow, and it runs
// the release as `make release` does (scripts/release.sh), for the tag that names the version.
TEST(CiLint, ActionValidatorAcceptsTheReleaseWorkflow) {
  const fs::path workflow = ci_source_dir().parent_path() / ".github" / "workflows" / "release.yml";
  ProcessResult r = validate_action(workflow);
  EXPECT_EQ(r.exit_code, 0) << r.output << r.errors;
  const std::string text = slurp(workflow);
  EXPECT_NE(text.find("scripts/release.sh"), std::string::npos);
  EXPECT_NE(text.find("tags: [\"v*\"]"), std::string::npos);
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
  EXPECT_EQ(examples, 5);
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
  text = std::regex_replace(text, std::regex("- remote: [^\n]*"), "- local: ci/gitlab/templates/ods.yml");
  text = std::regex_replace(text, std::regex("\n    integrity: [^\n]*"), "");
  return text;
}

TEST(CiLint, GitLabCiLocalExpandsAndListsTheTemplateAndTheExample) {
  const std::string example = example_with_local_include();
  ProcessResult preview = gitlab_ci_local(example, {"--preview"});
  ASSERT_EQ(preview.exit_code, 0) << preview.output << preview.errors;
  // The jobs got the template's script, cache and dotenv report through extends.
  EXPECT_NE(preview.output.find("key: ods-state\n"), std::string::npos) << preview.output;
  EXPECT_NE(preview.output.find("ODS_INPUT_PROJECT_DIR: analytics"), std::string::npos)
      << "the inputs reached the jobs";
  EXPECT_NE(preview.output.find("dotenv: ods-ci/ods.env"), std::string::npos) << preview.output;
  EXPECT_NE(preview.output.find("ods_ci.py"), std::string::npos);

  ProcessResult list = gitlab_ci_local(example, {"--list-all", "--variable", "CI_PIPELINE_SOURCE=merge_request_event"});
  ASSERT_EQ(list.exit_code, 0) << list.output << list.errors;
  for (const char* job : {"ods-plan", "ods-run", "ods-report"})
    EXPECT_NE(list.output.find(job), std::string::npos) << job << "\n" << list.output;

  // The template alone, with one job of each kind.
  ProcessResult bare = gitlab_ci_local(
      "include:\n  - local: ci/gitlab/templates/ods.yml\np:\n  extends: .ods-plan\nr:\n  extends: .ods-run\n"
      "t:\n  extends: .ods-test\n",
      {"--list"});
  ASSERT_EQ(bare.exit_code, 0) << bare.output << bare.errors;
}

TEST(CiLint, GitLabCiLocalRefusesABrokenTemplate) {
  ProcessResult broken = gitlab_ci_local(
      "include:\n  - local: ci/gitlab/templates/ods.yml\np:\n  extends: .ods-plan\n  cache:\n    - key: k\n"
      "      paths: [x]\n      policy: sometimes\n",
      {"--list"});
  EXPECT_NE(broken.exit_code, 0) << broken.output;
  EXPECT_NE((broken.output + broken.errors).find("policy"), std::string::npos) << broken.output << broken.errors;
}

TEST(CiLint, GitLabCiLocalIncludesTheComponentByComponentWithInputs) {
  // A component project: templates/ods.yml at its root, included as <host>/<project>/ods@<sha>.
  TempDir repo("glcomp");
  fs::copy(ci_source_dir() / "gitlab" / "templates", repo.path() / "templates", fs::copy_options::recursive);
  git(repo.path(), {"init", "-q", "-b", "main"});
  git(repo.path(), {"remote", "add", "origin", "https://gitlab.example.com/shop-co/ods.git"});
  git(repo.path(), {"add", "-A"});
  git(repo.path(), {"commit", "-qm", "component"});
  const std::string sha = git(repo.path(), {"rev-parse", "HEAD"}).output.substr(0, 40);
  std::ofstream(repo.path() / ".gitlab-ci.yml")
      << "include:\n  - component: gitlab.example.com/shop-co/ods/ods@" << sha
      << "\n    inputs:\n      project-dir: warehouse-models\n      fail-on: never\n"
         "plan:\n  extends: .ods-plan\nrun:\n  extends: .ods-run\n";
  ProcessResult preview = run_process({(npm_tools_bin() / "gitlab-ci-local").string(), "--no-color", "--preview"},
                                      repo.path(), {"HOME=" + repo.path().string()});
  ASSERT_EQ(preview.exit_code, 0) << preview.output << preview.errors;
  EXPECT_NE(preview.output.find("ODS_INPUT_PROJECT_DIR: warehouse-models"), std::string::npos) << preview.output;
  EXPECT_NE(preview.output.find("ODS_INPUT_FAIL_ON: never"), std::string::npos) << preview.output;
}

TEST(CiLint, TheGitLabExamplePinsTheTemplateItIncludesByItsDigest) {
  const std::string example = slurp(ci_source_dir() / "gitlab" / "examples" / ".gitlab-ci.yml");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(example, m,
                                std::regex("- remote: [^\n]*/ci/gitlab/templates/ods.yml\n"
                                           "    integrity: (sha256-[A-Za-z0-9+/=]+)\n")))
      << "the remote include needs integrity:\n"
      << example;
  ProcessResult digest = run_process({"bash", "-c", "openssl dgst -sha256 -binary templates/ods.yml | base64"},
                                     ci_source_dir() / "gitlab");
  ASSERT_EQ(digest.exit_code, 0) << digest.errors;
  EXPECT_EQ(m[1].str(), "sha256-" + digest.output.substr(0, digest.output.find('\n')))
      << "ci/gitlab/templates/ods.yml changed: update the example's integrity: to its new digest";
}

TEST(CiLint, TheActionDeclaresEveryOutputItsStepsWrite) {
  const std::string action = slurp(ci_source_dir() / "github" / "action.yml");
  const std::string outputs =
      action.substr(action.find("\noutputs:"), action.find("\nruns:") - action.find("\noutputs:"));
  for (const char* name : {"built", "reused", "failed", "skipped", "selection", "time-saved-seconds", "plan-json",
                           "summary", "exit-code", "outcome"})
    EXPECT_NE(outputs.find(std::string("\n  ") + name + ":\n"), std::string::npos) << name << " is not declared";
  // ...and every one the step sets is in that list (ods_ci.py's set_outputs of the run).
  const std::string script = slurp(ci_source_dir() / "common" / "ods_ci.py");
  const std::string run = script.substr(script.find("def cmd_run"));
  std::regex key("\n        \"([a-z-]+)\": ");
  for (auto it = std::sregex_iterator(run.begin(), run.end(), key); it != std::sregex_iterator(); ++it)
    EXPECT_NE(outputs.find("\n  " + (*it)[1].str() + ":\n"), std::string::npos) << (*it)[1] << " is not declared";
}

TEST(CiLint, TheGitHubExamplesRunOneAtATimeAndThePlanGuardsForks) {
  for (const char* name :
       {"pr-plan.yml", "pr-environment.yml", "pr-cleanup.yml", "run-sqlite.yml", "run-postgres.yml"}) {
    const std::string text = slurp(ci_source_dir() / "github" / "examples" / name);
    EXPECT_NE(text.find("\nconcurrency:\n  group: "), std::string::npos) << name << " has no concurrency group";
  }
  for (const char* name : {"pr-plan.yml", "pr-environment.yml", "pr-cleanup.yml"}) {
    const std::string plan = slurp(ci_source_dir() / "github" / "examples" / name);
    EXPECT_NE(plan.find("if: github.event.pull_request.head.repo.full_name == github.repository"), std::string::npos)
        << name << " has no fork guard";
    EXPECT_EQ(plan.find("\n  pull_request_target:"), std::string::npos) << "a fork's code must never run with secrets";
  }
}

// The one dbt the step starts itself (dbt deps) gets what ods's children get: the step's list of
// ods's secrets (ci/common/ods_ci.py, ODS_SECRET_VARIABLES) names exactly cli's one list
// (cli/src/shared/child_environment.cc, secret_variables()).
TEST(CiLint, TheStepWithholdsWhatOdsWithholds) {
  auto quoted_names = [](const std::string& text, const std::regex& block) {
    std::smatch m;
    EXPECT_TRUE(std::regex_search(text, m, block)) << "the list is not where this test looks for it";
    std::set<std::string> names;
    const std::string body = m.size() > 1 ? m[1].str() : "";
    static const std::regex name("\"(ODS_[A-Z_]+)\"");
    for (std::sregex_iterator it(body.begin(), body.end(), name), end; it != end; ++it) names.insert((*it)[1]);
    return names;
  };
  const std::set<std::string> ods =
      quoted_names(slurp(ci_source_dir().parent_path() / "cli" / "src" / "shared" / "child_environment.cc"),
                   std::regex("kNames\\{([^}]*)\\}"));
  const std::set<std::string> step =
      quoted_names(slurp(ci_source_dir() / "common" / "ods_ci.py"), std::regex("ODS_SECRET_VARIABLES = \\(([^)]*)\\)"));
  EXPECT_FALSE(ods.empty());
  EXPECT_EQ(step, ods);
}

// Issue 39, item 12: the read-only state credential has one name, ODS_STATE_READER, in the docs,
// the action, the template, the examples and the tests (docs/ci.md once said ODS_STATE_READER_URL).
TEST(CiLint, TheStateReaderHasOneNameEverywhere) {
  const fs::path root = ci_source_dir().parent_path();
  std::vector<fs::path> files{root / "docs" / "ci.md", root / "docs" / "security.md"};
  for (const fs::path& dir : {root / "ci", root / "tests" / "ci"})
    for (const auto& e : fs::recursive_directory_iterator(dir))
      if (e.is_regular_file() && e.path().filename() != "package-lock.json") files.push_back(e.path());
  const std::regex other_name("ODS_STATE_READER[A-Z_]+|ODS_STATE_RO\\b|ODS_READER_STATE");
  for (const auto& file : files) {
    if (file.filename() == "ci_lint_test.cc") continue;  // this test names the other names
    const std::string text = slurp(file);
    std::smatch m;
    EXPECT_FALSE(std::regex_search(text, m, other_name)) << file << " names the reader's secret " << m.str(0);
  }
  for (const char* name : {"pr-plan.yml", "pr-environment.yml"})
    EXPECT_NE(slurp(ci_source_dir() / "github" / "examples" / name).find("state: ${{ secrets.ODS_STATE_READER }}"),
              std::string::npos)
        << name;
  EXPECT_NE(slurp(ci_source_dir() / "gitlab" / "templates" / "ods.yml").find("ODS_CI_STATE_VARIABLE: ODS_STATE_READER"),
            std::string::npos);
  EXPECT_NE(slurp(root / "docs" / "ci.md").find("secrets.ODS_STATE_READER }}"), std::string::npos);
}

// Issue 39, item 15: a project-level ODS_STATE overrides the variables of any job, so the GitLab
// plan jobs must not take their state from ODS_STATE (not even through a job-level variable in
// the example): the expanded example's plan and environment jobs read ODS_STATE_READER.
TEST(CiLint, TheGitLabPlanJobsReadTheReaderVariableAlone) {
  ProcessResult preview = gitlab_ci_local(example_with_local_include(), {"--preview"});
  ASSERT_EQ(preview.exit_code, 0) << preview.output << preview.errors;
  for (const char* job : {"\nods-plan:\n", "\nods-pr:\n"}) {
    const auto at = preview.output.find(job);
    ASSERT_NE(at, std::string::npos) << job << preview.output;
    const auto end = preview.output.find("\nods-", at + 1);
    const std::string body = preview.output.substr(at, end == std::string::npos ? std::string::npos : end - at);
    EXPECT_NE(body.find("\n    ODS_CI_STATE_VARIABLE: ODS_STATE_READER\n"), std::string::npos) << body;
    EXPECT_EQ(body.find("\n    ODS_STATE:"), std::string::npos) << "a job-level ODS_STATE loses to a project's\n"
                                                                << body;
  }
}

// Issue 39, item 16: docs/ci.md lists every input of the action (the table after "Inputs") and of
// the GitLab component (with its variable), so none is found only by reading the YAML.
TEST(CiLint, TheDocsListEveryInputOfTheActionAndTheComponent) {
  const std::string docs = slurp(ci_source_dir().parent_path() / "docs" / "ci.md");
  const auto from = docs.find("\nInputs");
  ASSERT_NE(from, std::string::npos);
  const std::string inputs = docs.substr(from, docs.find("Every input reaches the scripts", from) - from);
  const std::string action = slurp(ci_source_dir() / "github" / "action.yml");
  const std::string declared =
      action.substr(action.find("\ninputs:"), action.find("\noutputs:") - action.find("\ninputs:"));
  const std::regex input("\n  ([a-z-]+):\n");
  int count = 0;
  for (auto it = std::sregex_iterator(declared.begin(), declared.end(), input); it != std::sregex_iterator(); ++it) {
    ++count;
    EXPECT_NE(inputs.find("`" + (*it)[1].str() + "`"), std::string::npos)
        << "docs/ci.md's inputs of the action leave out " << (*it)[1];
  }
  EXPECT_GE(count, 18);
  const std::string component = slurp(ci_source_dir() / "gitlab" / "templates" / "ods.yml");
  const std::string spec = component.substr(0, component.find("\n---"));
  const std::regex spec_input("\n    ([a-z-]+):\n      description");
  count = 0;
  for (auto it = std::sregex_iterator(spec.begin(), spec.end(), spec_input); it != std::sregex_iterator(); ++it) {
    ++count;
    EXPECT_NE(docs.find("`" + (*it)[1].str() + "`"), std::string::npos) << "docs/ci.md never names " << (*it)[1];
    // Each input's variable: ODS_<NAME>, ods-version/-download-url/-path without the ods-.
    std::string name = (*it)[1].str();
    if (name.starts_with("ods-")) name = name.substr(4);
    std::string variable = "ODS_";
    for (char c : name) variable += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_NE(docs.find("`" + variable + "`"), std::string::npos) << "docs/ci.md never names " << variable;
  }
  EXPECT_GE(count, 14);
}

// Issue 39, item 16: the sample profiles.yml has the targets the examples name (prod, pr), and
// each GitHub example's ODS step sets every variable those targets read without a default (the
// targets its command compiles: prod; pr and drop-pr also pr).
TEST(CiLint, TheSampleProfileHasProdAndPrTargetsAndTheExamplesSetWhatItReads) {
  const fs::path profile = ci_source_dir() / "examples" / "profiles.yml";
  ASSERT_TRUE(fs::exists(profile));
  constexpr const char* kRead =
      "import json, re, sys, yaml\n"
      "profile = yaml.safe_load(open(sys.argv[1]))\n"
      "(name, body), = profile.items()\n"
      "needs = {}\n"
      "for target, output in body['outputs'].items():\n"
      "    text = json.dumps(output)\n"
      "    needs[target] = sorted(set(re.findall(r\"env_var\\('([A-Z_]+)'\\)\", text)))\n"
      "out = {'default': body.get('target'), 'needs': needs, 'steps': {}}\n"
      "for example in sys.argv[2:]:\n"
      "    doc = yaml.safe_load(open(example))\n"
      "    for job in doc['jobs'].values():\n"
      "        for step in job['steps']:\n"
      "            if '/ci/github@' in step.get('uses', ''):\n"
      "                out['steps'][example.rsplit('/', 1)[-1]] = {'with': step['with'], 'env': sorted(step.get('env', "
      "{}))}\n"
      "print(json.dumps(out))\n";
  std::vector<std::string> argv{(venv_bin() / "python").string(), "-c", kRead, profile.string()};
  for (const char* name : {"pr-plan.yml", "pr-environment.yml", "pr-cleanup.yml", "run-sqlite.yml", "run-postgres.yml"})
    argv.push_back((ci_source_dir() / "github" / "examples" / name).string());
  ProcessResult r = run_process(argv, ci_source_dir());
  ASSERT_EQ(r.exit_code, 0) << r.errors;
  const auto doc = nlohmann::json::parse(r.output);
  EXPECT_EQ(doc.at("default"), "prod");
  ASSERT_TRUE(doc.at("needs").contains("prod")) << doc.dump(1);
  ASSERT_TRUE(doc.at("needs").contains("pr")) << doc.dump(1);
  EXPECT_NE(doc.at("needs").at("pr").dump().find("DBT_PR_SCHEMA"), std::string::npos) << doc.dump(1);
  ASSERT_EQ(doc.at("steps").size(), 5u) << doc.dump(1);
  for (const auto& [example, s] : doc.at("steps").items()) {
    const auto& with = s.at("with");
    EXPECT_EQ(with.value("target", ""), "prod") << example;
    std::vector<std::string> targets{"prod"};
    const std::string command = with.value("command", "plan");
    if (command == "pr" || command == "drop-pr") {
      EXPECT_EQ(with.value("pr-target", ""), "pr") << example;
      targets.push_back("pr");
    }
    std::set<std::string> set(s.at("env").begin(), s.at("env").end());
    for (const auto& t : targets)
      for (const auto& variable : doc.at("needs").at(t))
        EXPECT_TRUE(set.contains(variable.get<std::string>())) << example << " does not set " << variable;
  }
}

}  // namespace
}  // namespace ods::testing
