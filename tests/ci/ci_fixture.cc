#include "ci_fixture.h"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

namespace ods::testing {

namespace fs = std::filesystem;

namespace {

std::string last_line(const std::string& text) {
  std::string trimmed = text;
  while (!trimmed.empty() && (trimmed.back() == '\n' || trimmed.back() == '\r')) trimmed.pop_back();
  const auto at = trimmed.rfind('\n');
  return at == std::string::npos ? trimmed : trimmed.substr(at + 1);
}

}  // namespace

fs::path ci_source_dir() { return source_dir() / "ci"; }
fs::path ci_tests_dir() { return source_dir() / "tests" / "ci"; }

fs::path npm_tools_bin() {
  static const fs::path kBin = [] {
    ProcessResult r = run_process({(ci_tests_dir() / "install_npm_tools.sh").string()}, ci_tests_dir());
    if (r.exit_code != 0) return fs::path();
    return fs::path(last_line(r.output));
  }();
  EXPECT_FALSE(kBin.empty()) << "tests/ci/install_npm_tools.sh failed";
  return kBin;
}

ApiStandIn::ApiStandIn(const Options& options) : other_token_(options.other_token) {
  const fs::path port_file = dir_.path() / "port";
  std::vector<std::string> argv{(venv_bin() / "python").string(),
                                (ci_tests_dir() / "api_standin.py").string(),
                                "--port-file",
                                port_file.string(),
                                "--record",
                                (dir_.path() / "requests.jsonl").string(),
                                "--token",
                                options.token,
                                "--read-only-token",
                                options.read_only_token,
                                "--other-token",
                                options.other_token,
                                "--seed",
                                std::to_string(options.seed)};
  if (!options.files.empty()) {
    argv.push_back("--files");
    argv.push_back(options.files.string());
  }
  auto started = process_.start(argv, dir_.path(), dir_.path() / "standin.log");
  EXPECT_TRUE(started.has_value()) << started.error();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!fs::exists(port_file) && !process_.exited() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_TRUE(fs::exists(port_file)) << "the API stand-in did not start: " << process_.log_tail();
  if (fs::exists(port_file)) port_ = std::stoi(read_text_file(port_file));
}

ApiStandIn::~ApiStandIn() { process_.stop(std::chrono::seconds(2)); }

std::vector<nlohmann::json> ApiStandIn::requests() const {
  std::vector<nlohmann::json> out;
  std::istringstream lines(read_text_file(dir_.path() / "requests.jsonl"));
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) out.push_back(nlohmann::json::parse(line));
  return out;
}

std::vector<nlohmann::json> ApiStandIn::requests(const std::string& method) const {
  std::vector<nlohmann::json> out;
  for (auto& r : requests())
    if (r.at("method") == method) out.push_back(r);
  return out;
}

long long ApiStandIn::plant_comment(const std::string& path, const std::string& body, bool gitlab) const {
  constexpr const char* kPost =
      "import json, sys, urllib.request\n"
      "url, header, value, body = sys.argv[1:5]\n"
      "req = urllib.request.Request(url, data=json.dumps({'body': body}).encode(), method='POST',\n"
      "                             headers={header: value, 'Content-Type': 'application/json'})\n"
      "print(json.load(urllib.request.urlopen(req))['id'])\n";
  ProcessResult r =
      run_process({(venv_bin() / "python").string(), "-c", kPost, url() + path,
                   gitlab ? "PRIVATE-TOKEN" : "Authorization", gitlab ? other_token_ : "Bearer " + other_token_, body},
                  dir_.path());
  EXPECT_EQ(r.exit_code, 0) << r.output << r.errors;
  return r.exit_code == 0 ? std::stoll(r.output) : 0;
}

std::string comment_marker(const std::string& key) {
  ProcessResult r = run_process({(venv_bin() / "python").string(), "-c",
                                 "import sys; sys.path.insert(0, sys.argv[1]); import review_comment; "
                                 "print(review_comment.marker(sys.argv[2]), end='')",
                                 (ci_source_dir() / "common").string(), key},
                                ci_source_dir());
  EXPECT_EQ(r.exit_code, 0) << r.errors;
  return r.output;
}

nlohmann::json example_action_inputs(const std::string& name) {
  ProcessResult r = run_process({(venv_bin() / "python").string(), "-c",
                                 "import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))",
                                 (ci_source_dir() / "github" / "examples" / name).string()},
                                ci_source_dir());
  EXPECT_EQ(r.exit_code, 0) << r.errors;
  auto doc = nlohmann::json::parse(r.output, nullptr, false);
  const nlohmann::json jobs =
      doc.is_discarded() ? nlohmann::json::object() : doc.value("jobs", nlohmann::json::object());
  for (const auto& [job_name, job] : jobs.items()) {
    const nlohmann::json steps = job.value("steps", nlohmann::json::array());
    for (const auto& s : steps)
      if (s.value("uses", "").find("/ci/github@") != std::string::npos)
        return s.value("with", nlohmann::json::object());
  }
  ADD_FAILURE() << name << " has no step that uses ODS's action";
  return nlohmann::json::object();
}

nlohmann::json run_action(const nlohmann::json& spec, const fs::path& action) {
  TempDir dir("action");
  const fs::path spec_file = dir.path() / "spec.json";
  const fs::path result_file = dir.path() / "result.json";
  std::ofstream(spec_file) << spec.dump();
  ProcessResult r = run_process({(venv_bin() / "python").string(), (ci_tests_dir() / "action_harness.py").string(),
                                 (action.empty() ? ci_source_dir() / "github" / "action.yml" : action).string(),
                                 spec_file.string(), result_file.string()},
                                dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.output << r.errors;
  auto result = nlohmann::json::parse(read_text_file(result_file), nullptr, false);
  EXPECT_FALSE(result.is_discarded()) << r.output << r.errors;
  EXPECT_NE(result.value("conclusion", ""), "refused") << result.dump(1);
  return result;
}

std::string make_dist_archive(const fs::path& dir) {
  ProcessResult made = run_process(
      {(source_dir() / "scripts" / "dist.sh").string(), "--binary", ods_binary().string(), "--out", dir.string()},
      source_dir());
  EXPECT_EQ(made.exit_code, 0) << made.output << made.errors;
  static const std::regex kArchive("ods-(.+)-linux-x86_64\\.tar\\.gz");
  if (made.exit_code == 0 && fs::exists(dir))
    for (const auto& e : fs::directory_iterator(dir)) {
      std::smatch m;
      const std::string name = e.path().filename().string();
      if (std::regex_match(name, m, kArchive)) return m[1];
    }
  ADD_FAILURE() << "scripts/dist.sh wrote no archive into " << dir;
  return "";
}

std::string duckdb_scalar(const fs::path& db, const std::string& query) {
  const std::string script =
      "import duckdb,sys\ncon=duckdb.connect(sys.argv[1], "
      "read_only=True)\nprint(con.execute(sys.argv[2]).fetchone()[0])\n";
  ProcessResult r = run_process({(venv_bin() / "python").string(), "-c", script, db.string(), query}, db.parent_path());
  EXPECT_EQ(r.exit_code, 0) << query << "\n" << r.errors;
  return r.exit_code == 0 ? r.output : "";
}

nlohmann::json runner_env(const std::string& api_url, const std::string& branch, int pr_number,
                          const std::vector<std::string>& extra) {
  nlohmann::json env = {
      {"PATH", "/usr/local/bin:/usr/bin:/bin"},
      {"HOME", std::getenv("HOME") ? std::getenv("HOME") : "/root"},
      {"GITHUB_REPOSITORY", "shop-co/analytics"},
      {"GITHUB_REPOSITORY_OWNER", "shop-co"},
      {"GITHUB_API_URL", api_url},
      {"GITHUB_SERVER_URL", "https://github.com"},
      {"GITHUB_RUN_ID", std::to_string(1000 + pr_number)},
      {"GITHUB_RUN_ATTEMPT", "1"},
      {"GITHUB_SHA", "0123456789abcdef0123456789abcdef01234567"},
      {"GITHUB_ACTOR", "dev"},
      {"DBT_SEND_ANONYMOUS_USAGE_STATS", "false"},
      {"DO_NOT_TRACK", "1"},
  };
  if (pr_number > 0) {
    env["GITHUB_EVENT_NAME"] = "pull_request";
    env["GITHUB_REF"] = "refs/pull/" + std::to_string(pr_number) + "/merge";
    env["GITHUB_REF_NAME"] = std::to_string(pr_number) + "/merge";
    env["GITHUB_HEAD_REF"] = branch;
    env["GITHUB_BASE_REF"] = "main";
  } else {
    env["GITHUB_EVENT_NAME"] = "push";
    env["GITHUB_REF"] = "refs/heads/" + branch;
    env["GITHUB_REF_NAME"] = branch;
    env["GITHUB_HEAD_REF"] = "";
    env["GITHUB_BASE_REF"] = "";
  }
  for (const auto& kv : extra) {
    const auto eq = kv.find('=');
    env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return env;
}

nlohmann::json event_payload(int pr_number) {
  nlohmann::json repository = {{"full_name", "shop-co/analytics"}, {"default_branch", "main"}};
  if (pr_number <= 0) return {{"ref", "refs/heads/main"}, {"repository", repository}};
  return {{"action", "synchronize"},
          {"number", pr_number},
          {"pull_request",
           {{"number", pr_number},
            {"head",
             {{"ref", "feature"},
              {"sha", "fedcba9876543210fedcba9876543210fedcba98"},
              {"repo", {{"full_name", "shop-co/analytics"}, {"fork", false}}}}},
            {"base", {{"ref", "main"}, {"repo", {{"full_name", "shop-co/analytics"}}}}}}},
          {"repository", repository}};
}

nlohmann::json shop_action_spec(const nlohmann::json& inputs, const fs::path& workspace, const std::string& api_url,
                                const std::string& branch, int pr_number, const std::string& token,
                                const std::vector<std::string>& extra) {
  nlohmann::json all = {{"project-dir", "shop"},
                        {"profiles-dir", "shop"},
                        {"dbt", (venv_bin() / "dbt").string()},
                        {"ods-path", ods_binary().string()}};
  all.update(inputs);
  const fs::path temp = workspace / "runner-temp";
  fs::create_directories(temp);
  std::vector<std::string> env{"SHOP_DUCKDB_PATH=" + (workspace / "shop" / "shop.duckdb").string()};
  env.insert(env.end(), extra.begin(), extra.end());
  return {{"inputs", all},
          {"env", runner_env(api_url, branch, pr_number, env)},
          {"event", event_payload(pr_number)},
          {"github_token", token},
          {"workspace", workspace.string()},
          {"temp", temp.string()}};
}

namespace {

// The .gitlab-ci.yml of GitLabRepo.
constexpr const char* kPipeline = R"(include:
  - local: ci/gitlab/templates/ods.yml
    inputs:
      project-dir: shop
      profiles-dir: shop

variables:
  ODS_CI_DIR: $CI_PROJECT_DIR/ci/common

ods-plan:
  extends: .ods-plan
  rules:
    - if: $CI_MERGE_REQUEST_IID && $ODS_TEST_PR_ENVIRONMENT == null && $ODS_TEST_PR_STOP == null

ods-pr:
  extends: .ods-pr
  variables:
    ODS_PR_TARGET: pr
  rules:
    - if: $CI_MERGE_REQUEST_IID && $ODS_TEST_PR_ENVIRONMENT

ods-pr-stop:
  extends: .ods-pr-stop
  variables:
    ODS_PR_TARGET: pr
  rules:
    - if: $CI_MERGE_REQUEST_IID && $ODS_TEST_PR_STOP

ods-run:
  extends: .ods-run
  rules:
    - if: $CI_MERGE_REQUEST_IID == null

report:
  needs: [ods-run]
  rules:
    - if: $CI_MERGE_REQUEST_IID == null
  script:
    - echo "dotenv built=$ODS_BUILT reused=$ODS_REUSED failed=$ODS_FAILED"
)";

}  // namespace

void GitLabRepo::set_up(const std::function<void(const DbtProject&)>& before_commit) {
  if (before_commit) before_commit(project_);
  repo_ = project_.dir().parent_path() / "repo";
  fs::create_directories(repo_ / "ci");
  fs::copy(project_.dir(), repo_ / "shop", fs::copy_options::recursive);
  fs::copy(ci_source_dir() / "gitlab", repo_ / "ci" / "gitlab", fs::copy_options::recursive);
  fs::copy(ci_source_dir() / "common", repo_ / "ci" / "common", fs::copy_options::recursive);
  std::ofstream(repo_ / ".gitlab-ci.yml") << kPipeline;
  std::ofstream(repo_ / ".gitignore") << "*.duckdb\n*.duckdb.wal\n";
  ASSERT_EQ(git(repo_, {"init", "-q", "-b", "main"}).exit_code, 0);
  git(repo_, {"remote", "add", "origin", "https://gitlab.example.com/shop-co/analytics.git"});
  ASSERT_EQ(git(repo_, {"add", "-A"}).exit_code, 0);
  ASSERT_EQ(git(repo_, {"commit", "-qm", "shop"}).exit_code, 0);
  warehouse_ = project_.dir().parent_path() / "warehouse.duckdb";
  ASSERT_EQ(project_.generate_data().exit_code, 0);
  fs::copy_file(project_.dir() / "shop.duckdb", warehouse_);
}

ProcessResult GitLabRepo::pipeline(const ApiStandIn& api, int mr_iid, const std::vector<std::string>& variables) const {
  std::vector<std::string> all{"ODS_PATH=" + ods_binary().string(),
                               "ODS_DBT=" + (venv_bin() / "dbt").string(),
                               "SHOP_DUCKDB_PATH=" + warehouse_.string(),
                               "CI_API_V4_URL=" + api.url() + "/api/v4",
                               "CI_PROJECT_ID=42",
                               "ODS_GITLAB_TOKEN=good-token",
                               "DBT_SEND_ANONYMOUS_USAGE_STATS=false"};
  if (mr_iid > 0) {
    all.insert(all.end(), {"CI_MERGE_REQUEST_IID=" + std::to_string(mr_iid), "CI_MERGE_REQUEST_TARGET_BRANCH_NAME=main",
                           "CI_PIPELINE_SOURCE=merge_request_event"});
  }
  all.insert(all.end(), variables.begin(), variables.end());  // gitlab-ci-local: the last one wins
  std::vector<std::string> argv{(npm_tools_bin() / "gitlab-ci-local").string(), "--shell-isolation", "--no-color"};
  for (const auto& v : all) argv.insert(argv.end(), {"--variable", v});
  return run_process(argv, repo_, {"HOME=" + repo_.parent_path().string()});
}

nlohmann::json GitLabRepo::dotenv_line(const std::string& output) {
  std::smatch m;
  std::regex re("dotenv built=(\\d*) reused=(\\d*) failed=(\\d*)");
  if (!std::regex_search(output, m, re)) return nullptr;
  return {{"built", m[1].str()}, {"reused", m[2].str()}, {"failed", m[3].str()}};
}

const nlohmann::json& step(const nlohmann::json& result, const std::string& name) {
  for (const auto& s : result.at("steps"))
    if (s.at("name") == name) return s;
  ADD_FAILURE() << "no step named " << name << " in " << result.dump(1);
  static const nlohmann::json kEmpty = {{"conclusion", "missing"}, {"log", ""}, {"outputs", nlohmann::json::object()}};
  return kEmpty;
}

ProcessResult git(const fs::path& repo, std::vector<std::string> args) {
  args.insert(args.begin(), "git");
  return run_process(args, repo,
                     {"GIT_AUTHOR_NAME=ods-tests", "GIT_AUTHOR_EMAIL=ods-tests@example.com",
                      "GIT_COMMITTER_NAME=ods-tests", "GIT_COMMITTER_EMAIL=ods-tests@example.com"});
}

std::string file_sha256(const fs::path& file) {
  if (!fs::exists(file)) return "";
  ProcessResult r = run_process({"sha256sum", file.string()}, file.parent_path());
  return r.output.substr(0, 64);
}

}  // namespace ods::testing
