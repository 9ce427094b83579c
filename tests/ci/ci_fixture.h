#pragma once
// Shared parts of the CI-step suites (tests/ci): the pinned npm tools, the loopback stand-in of
// GitHub's and GitLab's REST APIs (tests/ci/api_standin.py), and the composite-action harness
// (tests/ci/action_harness.py), each a child process of the test.
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/background_process.h"
#include "harness/dbt_project.h"
#include "harness/temp_dir.h"

namespace ods::testing {

// node_modules/.bin of the npm tools pinned by tests/ci/package-lock.json (installed on first use
// by tests/ci/install_npm_tools.sh into the cache, reused afterwards); fails the test if it can't.
std::filesystem::path npm_tools_bin();

// ci/ in the source tree; tests/ci in the source tree.
std::filesystem::path ci_source_dir();
std::filesystem::path ci_tests_dir();

// The API stand-in on a loopback port. Requests are recorded as JSON lines; requests() reads them.
class ApiStandIn {
 public:
  struct Options {
    std::string token = "good-token";
    std::string read_only_token = "fork-token";
    std::string other_token = "other-token";  // writes as someone else (mallory)
    int seed = 0;                             // comments by someone else on every thread (to make pages)
    std::filesystem::path files;              // served under /downloads/
  };
  explicit ApiStandIn(const Options& options);
  ~ApiStandIn();
  ApiStandIn(const ApiStandIn&) = delete;
  ApiStandIn& operator=(const ApiStandIn&) = delete;

  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // Every request so far: {method, path, query, headers, body}.
  std::vector<nlohmann::json> requests() const;
  // The requests whose method is `method` (GET, POST, PATCH, PUT).
  std::vector<nlohmann::json> requests(const std::string& method) const;
  // POSTs `body` to `path` (e.g. /repos/o/r/issues/7/comments) as the other token's user, the way
  // someone else writes a comment; returns the new comment's id (0 when refused). The request is
  // recorded like any other.
  long long plant_comment(const std::string& path, const std::string& body, bool gitlab) const;

 private:
  TempDir dir_{"api"};
  std::string other_token_;
  BackgroundProcess process_;
  int port_ = 0;
};

// One run of ci/github/action.yml (or `action`, e.g. a vendored copy's) through the harness: `spec`
// is {inputs, env, event, github_token, workspace, temp}; returns the harness's result (conclusion,
// steps, uses, outputs, summary, log). Fails the test when the harness itself fails.
nlohmann::json run_action(const nlohmann::json& spec, const std::filesystem::path& action = {});

// The release archive `make dist` makes (scripts/dist.sh on the built ods) in `dir`: returns its
// version (the archive is dir/ods-<version>-linux-x86_64.tar.gz, with its .sha256); fails the test
// and returns "" when dist.sh fails.
std::string make_dist_archive(const std::filesystem::path& dir);

// The first column of the first row of `query` on the DuckDB file `db` (read only), as printed by
// Python, with a newline; "" and a test failure when the query fails.
std::string duckdb_scalar(const std::filesystem::path& db, const std::string& query);

// The environment a GitHub runner gives a job, for a push to `branch` or (pr_number > 0) a
// pull_request event from `branch` into main: GITHUB_* variables, PATH, HOME, and `extra`.
nlohmann::json runner_env(const std::string& api_url, const std::string& branch, int pr_number,
                          const std::vector<std::string>& extra = {});
// The event payload of that push or pull_request event.
nlohmann::json event_payload(int pr_number);

// The spec of one action run on examples/shop checked out at <workspace>/shop: `inputs` over the
// defaults (project-dir and profiles-dir shop, the venv's dbt, the built ods), the runner
// environment of runner_env() with SHOP_DUCKDB_PATH=<workspace>/shop/shop.duckdb unless `extra`
// sets it, the event payload, RUNNER_TEMP in the workspace.
nlohmann::json shop_action_spec(const nlohmann::json& inputs, const std::filesystem::path& workspace,
                                const std::string& api_url, const std::string& branch, int pr_number,
                                const std::string& token, const std::vector<std::string>& extra = {});

// A git repository holding examples/shop at shop/, the CI template (ci/gitlab, ci/common) and a
// .gitlab-ci.yml including it (an ods-run job outside merge requests, ods-plan inside them, and a
// `report` job printing the run's dotenv), run by gitlab-ci-local on the shell executor.
class GitLabRepo {
 public:
  // Builds the repository (one commit) and the warehouse beside it; fails the test if it can't.
  // `before_commit` (optional) changes the project first (the copy project() names).
  void set_up(const std::function<void(const DbtProject&)>& before_commit = {});
  // One pipeline; `mr_iid` > 0 makes it a merge request pipeline into main. `variables`
  // ("NAME=value") are added to (or override) the defaults: the built ods, the venv's dbt, the
  // warehouse, the stand-in's API URL, project 42, ODS_GITLAB_TOKEN=good-token.
  ProcessResult pipeline(const ApiStandIn& api, int mr_iid, const std::vector<std::string>& variables = {}) const;
  // {built, reused, failed} of the report job's line, null when it printed none.
  static nlohmann::json dotenv_line(const std::string& output);
  const std::filesystem::path& dir() const { return repo_; }
  // The DuckDB file every job builds into (outside the repository, as a warehouse server is).
  const std::filesystem::path& warehouse() const { return warehouse_; }
  // The project copied into the repository's shop/ (the files it names are outside dir()).
  const DbtProject& project() const { return project_; }

 private:
  DbtProject project_{"shop"};
  std::filesystem::path repo_;
  std::filesystem::path warehouse_;
};

// The hidden marker review_comment.py puts in the comment for `key` (project dir|target|command).
std::string comment_marker(const std::string& key);

// The `with:` of the step that uses ODS's action in an example workflow (ci/github/examples/NAME).
nlohmann::json example_action_inputs(const std::string& name);

// A step's record by name in a harness result; fails the test when absent.
const nlohmann::json& step(const nlohmann::json& result, const std::string& name);

// `git <args...>` in `repo` with a committer identity set.
ProcessResult git(const std::filesystem::path& repo, std::vector<std::string> args);

// SHA-256 of a file's bytes (sha256sum), or "" when it is missing.
std::string file_sha256(const std::filesystem::path& file);

}  // namespace ods::testing
