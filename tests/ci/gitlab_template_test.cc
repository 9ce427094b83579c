// The component ci/gitlab/templates/ods.yml (included with inputs) run by gitlab-ci-local (npm, pinned; the shell
// executor, since the jobs name no image; --shell-isolation so each job gets its own build folder and the cache and
// artifacts are carried as a runner carries them) in a pipeline that includes the template, on a
// git repository holding examples/shop, with real dbt, the built ods and a loopback stand-in of
// GitLab's notes API.
//
// The pipeline a team runs, in order: run (builds everything), run (the cache brings the state
// back: reuses everything), two merge request pipelines whose plan restores the run's cache,
// reuses, writes one note and then updates it (a note by someone else carrying the marker is left
// alone), a merge request from a fork (no secrets: neutral, a summary saying why), and the merge
// (the run builds what changed).
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "ci_fixture.h"

namespace ods::testing {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

class GitLabTemplate : public ::testing::Test {
 protected:
  void SetUp() override { repo_.set_up(); }
  ProcessResult pipeline(const ApiStandIn& api, int mr_iid, const std::vector<std::string>& variables = {}) {
    return repo_.pipeline(api, mr_iid, variables);
  }
  fs::path cached_state() const {
    return repo_.dir() / ".gitlab-ci-local" / "cache" / "ods-state" / ".ods-state" / "state.db";
  }
  nlohmann::json dotenv_line(const std::string& output) const { return GitLabRepo::dotenv_line(output); }
  fs::path repo() const { return repo_.dir(); }

  GitLabRepo repo_;
};

TEST_F(GitLabTemplate, RunTwiceThenAMergeRequestPlanWithOneNoteThenAForkThenTheMerge) {
  ApiStandIn api(ApiStandIn::Options{.seed = 105, .files = {}});

  ProcessResult run1 = pipeline(api, 0);
  ASSERT_EQ(run1.exit_code, 0) << run1.output << run1.errors;
  auto first = dotenv_line(run1.output);
  ASSERT_FALSE(first.is_null()) << run1.output;
  const int built = std::stoi(first.at("built").get<std::string>());
  EXPECT_GT(built, 5);
  EXPECT_EQ(first.at("reused"), "0");
  EXPECT_EQ(first.at("failed"), "0");
  ASSERT_TRUE(fs::exists(cached_state())) << "the run job's cache holds no state";
  const fs::path artifacts = repo() / ".gitlab-ci-local" / "artifacts" / "ods-run";
  EXPECT_TRUE(fs::exists(artifacts / "ods-ci" / "plan.json")) << "the plan JSON is an artifact";
  EXPECT_NE(slurp(artifacts / "ods-ci" / "summary.md").find("|"), std::string::npos);

  ProcessResult run2 = pipeline(api, 0);
  ASSERT_EQ(run2.exit_code, 0) << run2.output << run2.errors;
  auto second = dotenv_line(run2.output);
  ASSERT_FALSE(second.is_null()) << run2.output;
  // All but what examples/shop builds every time (dim_customers; orders_daily settles on its 2nd run).
  const int built2 = std::stoi(second.at("built").get<std::string>());
  EXPECT_LE(built2, 2) << run2.output;
  EXPECT_EQ(built2 + std::stoi(second.at("reused").get<std::string>()), built);
  EXPECT_TRUE(api.requests().empty()) << "no note outside a merge request";

  const std::string before = file_sha256(cached_state());
  const fs::path model = repo() / "shop" / "models" / "marts" / "fct_orders.sql";
  std::string sql = slurp(model);
  ASSERT_NE(sql.find("o.amount,\n"), std::string::npos);
  sql.replace(sql.find("o.amount,\n"), 10, "o.amount,\n    o.amount * 2 as doubled_amount,\n");
  std::ofstream(model, std::ios::trunc) << sql;
  ASSERT_EQ(git(repo(), {"commit", "-qam", "change"}).exit_code, 0);
  const std::string notes = "/api/v4/projects/42/merge_requests/5/notes";
  const long long planted = api.plant_comment(notes, comment_marker("shop|default|plan") + "\nnot from ODS", true);
  ASSERT_GT(planted, 0);
  ProcessResult plan1 = pipeline(api, 5);
  ASSERT_EQ(plan1.exit_code, 0) << plan1.output << plan1.errors;
  // The plan restored what the run saved (one cache key) and reuses it.
  const fs::path plan_json = repo() / ".gitlab-ci-local" / "artifacts" / "ods-plan" / "ods-ci" / "plan.json";
  auto plan_doc = nlohmann::json::parse(slurp(plan_json), nullptr, false);
  ASSERT_FALSE(plan_doc.is_discarded()) << plan1.output;
  EXPECT_GE(plan_doc.at("summary").at("built").get<int>(), 1);
  EXPECT_GT(plan_doc.at("summary").at("reused").get<int>(), built / 2) << plan1.output;
  ProcessResult plan2 = pipeline(api, 5);
  ASSERT_EQ(plan2.exit_code, 0) << plan2.output << plan2.errors;
  EXPECT_EQ(file_sha256(cached_state()), before) << "a merge request's plan changed the cached state";

  const auto posts = api.requests("POST");
  const auto puts = api.requests("PUT");
  ASSERT_EQ(posts.size(), 2u) << "the planted note and the plan's own\n" << plan1.output;
  ASSERT_EQ(puts.size(), 1u) << plan2.output;
  EXPECT_EQ(posts[1].at("path"), "/api/v4/projects/42/merge_requests/5/notes");
  EXPECT_EQ(posts[1].at("headers").at("private-token"), "good-token");
  EXPECT_NE(puts[0].at("path"), notes + "/" + std::to_string(planted)) << "someone else's note was updated";
  const std::string body = posts[1].at("body").at("body");
  EXPECT_EQ(body.rfind("<!-- ods-ci:", 0), 0u) << body;
  EXPECT_NE(body.find("fct_orders"), std::string::npos) << body;
  EXPECT_TRUE(puts[0].at("path").get<std::string>().starts_with("/api/v4/projects/42/merge_requests/5/notes/"));
  bool second_page_read = false;
  for (const auto& get : api.requests("GET")) second_page_read |= get.at("query").value("page", "") == "2";
  EXPECT_TRUE(second_page_read) << "106 notes at 100 a page: page 2 (X-Next-Page) must be read";

  // A merge request from a fork: its pipeline gets no secrets. The job succeeds and says why.
  ProcessResult fork = pipeline(api, 6,
                                {"CI_MERGE_REQUEST_SOURCE_PROJECT_ID=77", "CI_MERGE_REQUEST_PROJECT_ID=42",
                                 "CI_MERGE_REQUEST_SOURCE_PROJECT_PATH=stranger/analytics"});
  ASSERT_EQ(fork.exit_code, 0) << fork.output << fork.errors;
  EXPECT_NE(fork.output.find("needs production read access"), std::string::npos) << fork.output;
  EXPECT_EQ(api.requests("POST").size(), 2u);
  EXPECT_EQ(api.requests("PUT").size(), 1u);

  // The merge: the run builds what changed and reuses the rest.
  ProcessResult merged = pipeline(api, 0);
  ASSERT_EQ(merged.exit_code, 0) << merged.output << merged.errors;
  auto after = dotenv_line(merged.output);
  ASSERT_FALSE(after.is_null()) << merged.output;
  EXPECT_GE(std::stoi(after.at("built").get<std::string>()), 1);
  EXPECT_GT(std::stoi(after.at("reused").get<std::string>()), built / 2) << merged.output;
}

// .ods-pr (command pr) in a merge request pipeline: the change and its readers built into target
// pr from the run's cached state (restored, never saved), the rest read from production; one note.
TEST_F(GitLabTemplate, AMergeRequestEnvironmentBuildsTheChangeFromTheRunsStateWithOneNote) {
  ApiStandIn api(ApiStandIn::Options{.seed = 3, .files = {}});
  ProcessResult run = pipeline(api, 0);
  ASSERT_EQ(run.exit_code, 0) << run.output << run.errors;
  const std::string before = file_sha256(cached_state());
  ASSERT_FALSE(before.empty());
  const fs::path model = repo() / "shop" / "models" / "marts" / "fct_orders.sql";
  std::string sql = slurp(model);
  ASSERT_NE(sql.find("o.amount,\n"), std::string::npos);
  sql.replace(sql.find("o.amount,\n"), 10, "o.amount,\n    o.amount * 2 as doubled_amount,\n");
  std::ofstream(model, std::ios::trunc) << sql;
  ASSERT_EQ(git(repo(), {"commit", "-qam", "change"}).exit_code, 0);

  ProcessResult env = pipeline(api, 5, {"ODS_TEST_PR_ENVIRONMENT=1"});
  ASSERT_EQ(env.exit_code, 0) << env.output << env.errors;
  EXPECT_NE(env.output.find("state pr"), std::string::npos) << env.output;
  EXPECT_NE(env.output.find("--read-only-state"), std::string::npos) << env.output;
  const fs::path doc_path = repo() / ".gitlab-ci-local" / "artifacts" / "ods-pr" / "ods-ci" / "plan.json";
  auto doc = nlohmann::json::parse(slurp(doc_path), nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << env.output;
  EXPECT_EQ(doc.at("summary").at("command"), "pr");
  std::set<std::string> built;
  for (const auto& e : doc.at("pr").at("built")) built.insert(e.at("name").get<std::string>());
  EXPECT_TRUE(built.contains("fct_orders")) << doc.at("pr").dump(2);
  EXPECT_FALSE(built.contains("stg_orders")) << "unchanged: read from production\n" << doc.at("pr").dump(2);
  EXPECT_FALSE(doc.at("pr").at("from_production").empty());
  EXPECT_EQ(doc.at("pr").at("counts").at("tests_failed"), 0);
  EXPECT_EQ(file_sha256(cached_state()), before) << "a merge request's environment changed the cached state";
  const auto posts = api.requests("POST");
  ASSERT_EQ(posts.size(), 1u) << env.output;
  EXPECT_NE(posts[0].at("body").at("body").get<std::string>().find("ODS PR environment"), std::string::npos);

  // Issue 39, item 16: the environment's on_stop job (.ods-pr-stop) drops the merge request's
  // schema and leaves production's alone.
  const std::string schema_pr = "select count(*) from information_schema.schemata where schema_name = 'pr'";
  const std::string production = "select count(*) from information_schema.tables where table_schema = 'main'";
  ASSERT_EQ(duckdb_scalar(repo_.warehouse(), schema_pr), "1\n");
  const std::string tables = duckdb_scalar(repo_.warehouse(), production);
  ProcessResult stop = pipeline(api, 5, {"ODS_TEST_PR_STOP=1"});
  ASSERT_EQ(stop.exit_code, 0) << stop.output << stop.errors;
  EXPECT_NE(stop.output.find("Dropped the pull request's schemas"), std::string::npos) << stop.output;
  EXPECT_EQ(duckdb_scalar(repo_.warehouse(), schema_pr), "0\n");
  EXPECT_EQ(duckdb_scalar(repo_.warehouse(), production), tables);
}

// Issue 39, item 16: until a version is published, the template from a copy of ci/ inside the
// repository (this pipeline's local include) and the CLI from the archive `make dist` makes,
// fetched from a file:// URL and checked; the jobs run the archive's own ods_ci.py (no ODS_CI_DIR).
TEST_F(GitLabTemplate, AVendoredCopyRunsWithTheArchiveOfMakeDist) {
  ApiStandIn api(ApiStandIn::Options{.seed = 0, .files = {}});
  TempDir vendor("vendor");
  const std::string version = make_dist_archive(vendor.path());
  ASSERT_FALSE(version.empty());
  // The template alone is vendored: the step's script comes from the archive.
  fs::remove_all(repo() / "ci" / "common");
  ASSERT_EQ(git(repo(), {"commit", "-qam", "only the template"}).exit_code, 0);
  ProcessResult run = pipeline(
      api, 0,
      {"ODS_PATH=", "ODS_CI_DIR=", "ODS_VERSION=" + version, "ODS_DOWNLOAD_URL=file://" + vendor.path().string()});
  ASSERT_EQ(run.exit_code, 0) << run.output << run.errors;
  EXPECT_NE(run.output.find("ods-" + version + "-linux-x86_64.tar.gz: OK"), std::string::npos) << run.output;
  auto counts = dotenv_line(run.output);
  ASSERT_FALSE(counts.is_null()) << run.output;
  EXPECT_GT(std::stoi(counts.at("built").get<std::string>()), 5) << run.output;
}

}  // namespace
}  // namespace ods::testing
