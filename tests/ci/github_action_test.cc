// ci/github/action.yml run as a GitHub runner runs a composite action (tests/ci/action_harness.py),
// on a copy of examples/shop with real dbt and the built ods, against a loopback stand-in of
// GitHub's REST API (tests/ci/api_standin.py) that also serves the release archive.
//
// The suite shares one workspace: the first run (ods-version downloaded, checksum checked) builds
// everything, the second reuses it all; the pull-request scenarios plan against that state.
// `uses:` steps (actions/cache) are recorded by the harness; the workspace itself plays the cache.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <set>

#include "ci_fixture.h"

namespace ods::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kVersion = "0.0.0-test";
constexpr const char* kArchive = "ods-0.0.0-test-linux-x86_64";

nlohmann::json parse_file(const std::string& path) {
  std::ifstream in(path);
  auto doc = nlohmann::json::parse(in, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << path;
  return doc;
}

// Builds <dir>/ods-<version>-linux-x86_64.tar.gz holding bin/ods (the built binary) and its .sha256,
// laid out as `make dist` lays them out.
void make_release(const fs::path& dir) {
  const fs::path root = dir / "staging" / kArchive / "bin";
  fs::create_directories(root);
  fs::copy_file(ods_binary(), root / "ods");
  ProcessResult tar =
      run_process({"tar", "--use-compress-program=gzip -1", "-cf", (dir / (std::string(kArchive) + ".tar.gz")).string(),
                   "-C", (dir / "staging").string(), kArchive},
                  dir);
  ASSERT_EQ(tar.exit_code, 0) << tar.errors;
  ProcessResult sum = run_process({"sha256sum", std::string(kArchive) + ".tar.gz"}, dir);
  ASSERT_EQ(sum.exit_code, 0) << sum.errors;
  std::ofstream(dir / (std::string(kArchive) + ".tar.gz.sha256")) << sum.output;
}

class GitHubAction : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    releases_ = std::make_unique<TempDir>("rel");
    make_release(releases_->path());
    api_ = std::make_unique<ApiStandIn>(ApiStandIn::Options{.seed = 120, .files = releases_->path()});
    project_ = std::make_unique<DbtProject>("shop");
    ProcessResult loaded = project_->generate_data();
    ASSERT_EQ(loaded.exit_code, 0) << loaded.output << loaded.errors;
    first_ = run({{"command", "run"},
                  {"ods-path", ""},
                  {"ods-version", kVersion},
                  {"ods-download-url", api_->url() + "/downloads"}},
                 "main", 0);
    if (first_.at("outputs").value("plan-json", "") != "")
      first_doc_ = parse_file(first_.at("outputs").at("plan-json"));
    second_ = run({{"command", "run"}}, "main", 0);
  }
  static void TearDownTestSuite() {
    project_.reset();
    api_.reset();
    releases_.reset();
  }

  static fs::path workspace() { return project_->dir().parent_path(); }
  static fs::path state_db() { return workspace() / ".ods-state" / "state.db"; }

  // The action with `inputs` over the defaults every scenario shares, on a push to `branch` or
  // (pr > 0) a pull request from it.
  static nlohmann::json run(const nlohmann::json& inputs, const std::string& branch, int pr,
                            const std::string& token = "good-token", const fs::path& in = {}) {
    return run_action(shop_action_spec(inputs, in.empty() ? workspace() : in, api_->url(), branch, pr, token));
  }

  static inline std::unique_ptr<TempDir> releases_;
  static inline std::unique_ptr<ApiStandIn> api_;
  static inline std::unique_ptr<DbtProject> project_;
  static inline nlohmann::json first_;
  static inline nlohmann::json first_doc_;  // the first run's plan JSON (the second replaces the file)
  static inline nlohmann::json second_;
};

TEST_F(GitHubAction, FirstRunBuildsEverythingFromTheDownloadedReleaseAndTheSecondReusesIt) {
  ASSERT_EQ(first_.at("conclusion"), "success") << first_.at("log");
  EXPECT_NE(step(first_, "Install ods").at("log").get<std::string>().find("verified (sha256"), std::string::npos);
  EXPECT_NE(step(first_, "Install ods").at("outputs").at("ods").get<std::string>().find(kArchive), std::string::npos);
  EXPECT_EQ(api_->requests("GET").empty(), false);

  const auto& out1 = first_.at("outputs");
  const int built = std::stoi(out1.at("built").get<std::string>());
  EXPECT_GT(built, 5);
  EXPECT_EQ(out1.at("reused"), "0");
  EXPECT_EQ(out1.at("failed"), "0");
  const auto& summary = first_doc_.at("summary");
  EXPECT_EQ(summary.at("built").get<int>(), built);
  EXPECT_EQ(summary.at("selection").get<std::string>(), out1.at("selection").get<std::string>());
  EXPECT_FALSE(out1.at("selection").get<std::string>().empty());
  EXPECT_EQ(summary.at("dry_run"), false);

  ASSERT_EQ(second_.at("conclusion"), "success") << second_.at("log");
  // The second run reuses all but what examples/shop builds every time (dim_customers reads the run
  // context; orders_daily, incremental, settles on its second run).
  const auto& out2 = second_.at("outputs");
  const int built2 = std::stoi(out2.at("built").get<std::string>());
  const int reused2 = std::stoi(out2.at("reused").get<std::string>());
  EXPECT_LE(built2, 2) << second_.at("summary");
  EXPECT_EQ(built2 + reused2, built);
  EXPECT_EQ(out2.at("selection").get<std::string>().find("stg_"), std::string::npos) << out2.at("selection");
  EXPECT_EQ(parse_file(out2.at("plan-json")).at("summary").at("reused").get<int>(), reused2);
  EXPECT_GE(std::stod(out2.at("time-saved-seconds").get<std::string>()), 0.0);

  // The step summary holds the Markdown table; nothing was commented on a push.
  const std::string md = second_.at("summary");
  EXPECT_NE(md.find("|"), std::string::npos) << md;
  EXPECT_NE(md.find("| Reused |"), std::string::npos) << md;
  EXPECT_TRUE(api_->requests("POST").empty());
  EXPECT_TRUE(fs::exists(state_db()));
}

TEST_F(GitHubAction, RunCachesTheSqliteStatePerBranchAndRunWithTheDefaultBranchAsFallback) {
  // examples/shop declares no packages: only the state is cached. One key for every target (the
  // file holds every scope), so a plan with any target restores what a run saved.
  ASSERT_EQ(second_.at("uses").size(), 2u) << second_.at("uses").dump(1);
  const auto& restore = second_.at("uses").at(0);
  EXPECT_EQ(restore.at("uses"), "actions/cache/restore@v4");
  EXPECT_EQ(restore.at("with").at("path"), ".ods-state");
  EXPECT_EQ(restore.at("with").at("key"), "ods-state-main-1000-1");
  EXPECT_EQ(restore.at("with").at("restore-keys"), "ods-state-main-");
  const auto& save = second_.at("uses").at(1);
  EXPECT_EQ(save.at("uses"), "actions/cache/save@v4");
  EXPECT_EQ(save.at("with").at("key"), "ods-state-main-1000-1");
  EXPECT_EQ(save.at("with").at("path"), ".ods-state");
}

TEST_F(GitHubAction, PullRequestPlanKeepsOneCommentAndWritesNothingToTheState) {
  const std::string before = file_sha256(state_db());
  ASSERT_FALSE(before.empty());
  constexpr const char* kColumn = "o.amount,\n";
  constexpr const char* kChanged = "o.amount,\n    o.amount * 2 as doubled_amount,\n";
  project_->replace_in("models/marts/fct_orders.sql", kColumn, kChanged);

  auto push1 = run({{"command", "plan"}}, "feature", 7);
  ASSERT_EQ(push1.at("conclusion"), "success") << push1.at("log");
  EXPECT_EQ(file_sha256(state_db()), before) << "a pull request's plan changed the production state";
  const auto doc = parse_file(push1.at("outputs").at("plan-json"));
  EXPECT_EQ(doc.at("summary").at("dry_run"), true);
  EXPECT_GE(std::stoi(push1.at("outputs").at("built").get<std::string>()), 1);
  // A plan only restores the production state (the base branch, then the default branch).
  ASSERT_EQ(push1.at("uses").size(), 1u) << push1.at("uses").dump(1);
  EXPECT_EQ(push1.at("uses").at(0).at("with").at("restore-keys"), "ods-state-main-");

  auto push2 = run({{"command", "plan"}}, "feature", 7);
  ASSERT_EQ(push2.at("conclusion"), "success") << push2.at("log");
  EXPECT_EQ(file_sha256(state_db()), before);
  project_->replace_in("models/marts/fct_orders.sql", kChanged, kColumn);

  // One comment created, then updated in place, found over the paginated list.
  const auto posts = api_->requests("POST");
  const auto patches = api_->requests("PATCH");
  ASSERT_EQ(posts.size(), 1u);
  ASSERT_EQ(patches.size(), 1u);
  EXPECT_EQ(posts[0].at("path"), "/repos/shop-co/analytics/issues/7/comments");
  EXPECT_EQ(posts[0].at("headers").at("authorization"), "Bearer good-token");
  const std::string body = posts[0].at("body").at("body");
  EXPECT_EQ(body.rfind("<!-- ods-ci:", 0), 0u) << body;
  EXPECT_NE(body.find("fct_orders"), std::string::npos) << body;
  EXPECT_EQ(patches[0].at("body").at("body").get<std::string>().substr(0, 30), body.substr(0, 30));
  EXPECT_TRUE(patches[0].at("path").get<std::string>().starts_with("/repos/shop-co/analytics/issues/comments/"));
  bool second_page_read = false;
  for (const auto& get : api_->requests("GET"))
    if (get.at("path") == "/repos/shop-co/analytics/issues/7/comments" && get.at("query").value("page", "") == "2")
      second_page_read = true;
  EXPECT_TRUE(second_page_read) << "the comment list has 121 entries: page 2 must be read";
}

TEST_F(GitHubAction, WithoutTokenOrFromAForkThePlanIsInTheSummaryAloneWithAWarning) {
  const auto posts_before = api_->requests("POST").size();
  auto none = run({{"command", "plan"}, {"github-token", ""}}, "other", 8, "");
  ASSERT_EQ(none.at("conclusion"), "success") << none.at("log");
  EXPECT_NE(none.at("log").get<std::string>().find("::warning::no github-token"), std::string::npos) << none.at("log");
  EXPECT_NE(none.at("summary").get<std::string>().find("|"), std::string::npos);

  auto fork = run({{"command", "plan"}, {"github-token", "fork-token"}}, "fork-branch", 9, "fork-token");
  ASSERT_EQ(fork.at("conclusion"), "success") << fork.at("log");
  EXPECT_NE(fork.at("log").get<std::string>().find("::warning::cannot write the review comment"), std::string::npos)
      << fork.at("log");
  EXPECT_NE(fork.at("log").get<std::string>().find("403"), std::string::npos);
  EXPECT_FALSE(fork.at("summary").get<std::string>().empty());
  EXPECT_EQ(api_->requests("POST").size(), posts_before + 1) << "the fork's POST (refused) and nothing else";
}

TEST_F(GitHubAction, AFailingModelFailsTheStepAndTheStateIsStillSaved) {
  DbtProject broken = DbtProject::copy_of(*project_);
  broken.replace_in("models/marts/fct_orders.sql", "select", "select no_such_column_anywhere,");
  const fs::path ws = broken.dir().parent_path();
  auto failed = run({{"command", "run"}, {"select", "fct_orders"}}, "main", 0, "good-token", ws);
  EXPECT_EQ(failed.at("conclusion"), "failure") << failed.at("log");
  EXPECT_EQ(step(failed, "ods").at("conclusion"), "failure");
  EXPECT_GE(std::stoi(failed.at("outputs").at("failed").get<std::string>()), 1) << failed.at("outputs").dump();
  EXPECT_NE(failed.at("log").get<std::string>().find("::error::ods run ended with exit status 1"), std::string::npos);
  EXPECT_EQ(failed.at("outputs").at("exit-code"), "1") << "exit-code is declared as the action's output";
  EXPECT_EQ(failed.at("outputs").at("outcome"), "failure");
  // The state is still saved after a failure (ODS records only what succeeded).
  EXPECT_EQ(failed.at("uses").size(), 2u);
}

TEST_F(GitHubAction, ABadChecksumIsRefusedBeforeAnythingRuns) {
  TempDir bad("badrel");
  make_release(bad.path());
  std::ofstream(bad.path() / (std::string(kArchive) + ".tar.gz.sha256"))
      << std::string(64, '0') << "  " << kArchive << ".tar.gz\n";
  ApiStandIn server(ApiStandIn::Options{.files = bad.path()});
  auto r = run({{"command", "run"},
                {"ods-path", ""},
                {"ods-version", kVersion},
                {"ods-download-url", server.url() + "/downloads"}},
               "main", 0);
  EXPECT_EQ(r.at("conclusion"), "failure");
  EXPECT_NE(step(r, "Install ods").at("log").get<std::string>().find("checksum mismatch"), std::string::npos)
      << step(r, "Install ods").at("log");
  EXPECT_EQ(step(r, "ods").at("conclusion"), "skipped");
}

// command: pr (ci/github/examples/pr-environment.yml): the pull request's changed model and its
// readers built into target `pr` (schema pr), the rest read from production; one comment of its
// own beside the plan's; production's state untouched (restored, never saved).
TEST_F(GitHubAction, PullRequestEnvironmentBuildsTheChangeInItsOwnSchemaWithOneCommentAndNoStateWritten) {
  const std::string before = file_sha256(state_db());
  ASSERT_FALSE(before.empty());
  constexpr const char* kColumn = "o.amount,\n";
  constexpr const char* kChanged = "o.amount,\n    o.amount * 3 as tripled_amount,\n";
  project_->replace_in("models/marts/fct_orders.sql", kColumn, kChanged);
  const auto posts_before = api_->requests("POST").size();
  const auto patches_before = api_->requests("PATCH").size();
  auto push1 = run({{"command", "pr"}, {"pr-target", "pr"}}, "feature-env", 11);
  auto push2 = run({{"command", "pr"}, {"pr-target", "pr"}}, "feature-env", 11);
  project_->replace_in("models/marts/fct_orders.sql", kChanged, kColumn);
  for (const auto* push : {&push1, &push2}) {
    ASSERT_EQ(push->at("conclusion"), "success") << push->at("log");
    EXPECT_EQ(file_sha256(state_db()), before) << "a pull request's environment changed the production state";
    const auto& out = push->at("outputs");
    EXPECT_EQ(out.at("outcome"), "success");
    EXPECT_EQ(out.at("exit-code"), "0");
    const auto doc = parse_file(out.at("plan-json"));
    EXPECT_EQ(doc.at("summary").at("command"), "pr");
    std::set<std::string> built;
    for (const auto& e : doc.at("pr").at("built")) built.insert(e.at("name").get<std::string>());
    EXPECT_TRUE(built.contains("fct_orders")) << doc.at("pr").dump(2);
    EXPECT_FALSE(built.contains("stg_orders")) << doc.at("pr").dump(2);
    EXPECT_EQ(out.at("built").get<std::string>(), std::to_string(built.size()));
    EXPECT_GE(std::stoi(out.at("reused").get<std::string>()), 1) << "read from production";
    EXPECT_EQ(doc.at("pr").at("counts").at("tests_failed"), 0);
    EXPECT_NE(push->at("log").get<std::string>().find("--read-only-state"), std::string::npos) << push->at("log");
    // Restored like a plan, never saved.
    ASSERT_EQ(push->at("uses").size(), 1u) << push->at("uses").dump(1);
    EXPECT_EQ(push->at("uses").at(0).at("uses"), "actions/cache/restore@v4");
  }
  // The PR's column is in the PR's schema, not production's.
  for (const auto& [schema, expected] : {std::pair{"pr", "1\n"}, std::pair{"main", "0\n"}}) {
    const std::string query = std::string(
                                  "select count(*) from information_schema.columns where column_name = "
                                  "'tripled_amount' and table_name = 'fct_orders' and table_schema = '") +
                              schema + "'";
    EXPECT_EQ(duckdb_scalar(project_->dir() / "shop.duckdb", query), expected) << schema;
  }
  // One comment of its own, created then updated; its Markdown lists what was built and why.
  const auto posts = api_->requests("POST");
  const auto patches = api_->requests("PATCH");
  ASSERT_EQ(posts.size(), posts_before + 1);
  ASSERT_EQ(patches.size(), patches_before + 1);
  const std::string body = posts.back().at("body").at("body");
  EXPECT_EQ(posts.back().at("path"), "/repos/shop-co/analytics/issues/11/comments");
  EXPECT_NE(body.find("ODS PR environment"), std::string::npos) << body;
  EXPECT_NE(body.find("fingerprint\\_changed"), std::string::npos) << body;
  EXPECT_NE(body.find("Read from production (deferred)"), std::string::npos) << body;
  EXPECT_NE(body.find("### Tests"), std::string::npos) << body;
}

TEST_F(GitHubAction, PrWithoutPrTargetIsRefusedBeforeAnythingRuns) {
  auto r = run({{"command", "pr"}}, "feature-env", 12);
  EXPECT_EQ(r.at("conclusion"), "failure");
  EXPECT_NE(r.at("log").get<std::string>().find("command pr needs pr-target"), std::string::npos) << r.at("log");
}

// Issue 39, item 14: select and exclude were dropped without a word for command pr (the PR
// environment is what the code changed); now refused, before anything runs.
TEST_F(GitHubAction, PrRefusesSelectAndExcludeBeforeAnythingRuns) {
  for (const auto& [input, value] : {std::pair{"select", "fct_orders"}, std::pair{"exclude", "stg_orders"}}) {
    auto r = run({{"command", "pr"}, {"pr-target", "pr"}, {input, value}}, "feature-env", 12);
    EXPECT_EQ(r.at("conclusion"), "failure") << input;
    const std::string log = step(r, "ods").at("log");
    EXPECT_NE(log.find(std::string("::error::ods: command pr takes no select or exclude (here: ") + input + ")"),
              std::string::npos)
        << log;
    EXPECT_EQ(log.find(" state pr"), std::string::npos) << "ods ran:\n" << log;
  }
}

// Issue 39, item 13: a pull request's plan whose reader secret is unset (Dependabot's: it gets only
// the Dependabot secrets) restores no cached state; it used to comment "every node never_built" as
// if that were the plan. Its summary and its comment now open by saying no production state was
// reachable, and why; the log warns.
TEST_F(GitHubAction, APlanWithNoProductionStateReachableSaysSoFirstInTheSummaryAndTheComment) {
  DbtProject fresh = DbtProject::copy_of(*project_);
  const fs::path ws = fresh.dir().parent_path();
  ASSERT_FALSE(fs::exists(ws / ".ods-state" / "state.db"));
  const auto posts_before = api_->requests("POST").size();
  auto spec = shop_action_spec({{"command", "plan"}, {"state", ""}}, ws, api_->url(), "dependabot/pip/dbt-core", 13,
                               "good-token", {"GITHUB_ACTOR=dependabot[bot]"});
  auto r = run_action(spec);
  ASSERT_EQ(r.at("conclusion"), "success") << r.at("log");
  const std::string summary = r.at("summary");
  EXPECT_EQ(summary.rfind("> **Warning: no production state was reachable,** so this", 0), 0u) << summary;
  EXPECT_NE(summary.find("This pull request is Dependabot's"), std::string::npos) << summary;
  EXPECT_NE(summary.find("`ODS_STATE_READER`"), std::string::npos) << summary;
  EXPECT_NE(r.at("log").get<std::string>().find("::warning::no production state was reachable"), std::string::npos)
      << r.at("log");
  const auto posts = api_->requests("POST");
  ASSERT_EQ(posts.size(), posts_before + 1);
  const std::string body = posts.back().at("body").at("body");
  EXPECT_NE(body.find("Warning: no production state was reachable"), std::string::npos) << body;

  // With the state restored (this suite's workspace), the same plan says nothing of the kind.
  auto restored = run({{"command", "plan"}}, "feature", 14);
  ASSERT_EQ(restored.at("conclusion"), "success") << restored.at("log");
  EXPECT_EQ(restored.at("summary").get<std::string>().find("no production state"), std::string::npos);
}

// Issue 39, item 16: command drop-pr (ci/github/examples/pr-cleanup.yml) drops the schemas the pull
// request's target builds into and production's does not, and never one production's target names.
TEST_F(GitHubAction, DropPrDropsThePullRequestsSchemaAndNeverProductions) {
  DbtProject copy = DbtProject::copy_of(*project_);
  const fs::path ws = copy.dir().parent_path();
  const fs::path db = copy.dir() / "shop.duckdb";
  ASSERT_EQ(copy.sql("create schema if not exists pr_15; create table pr_15.fct_orders as select 1 as id").exit_code,
            0);
  const std::string schemas = "select count(*) from information_schema.schemata where schema_name = ";
  const std::string tables = "select count(*) from information_schema.tables where table_schema = 'main'";
  const std::string production = duckdb_scalar(db, tables);
  ASSERT_NE(production, "0\n");

  auto r = run_action(shop_action_spec({{"command", "drop-pr"}, {"pr-target", "pr"}}, ws, api_->url(), "feature", 15,
                                       "good-token", {"SHOP_PR_SCHEMA=pr_15"}));
  ASSERT_EQ(r.at("conclusion"), "success") << r.at("log");
  EXPECT_EQ(duckdb_scalar(db, schemas + "'pr_15'"), "0\n");
  EXPECT_EQ(duckdb_scalar(db, tables), production);
  EXPECT_NE(r.at("summary").get<std::string>().find("- `shop.pr_15`"), std::string::npos) << r.at("summary");
  EXPECT_TRUE(r.at("uses").empty()) << "drop-pr neither restores nor saves a state: " << r.at("uses").dump(1);

  // A pr-target whose schema is production's: nothing of production's is dropped, the step fails.
  auto shared = run_action(shop_action_spec({{"command", "drop-pr"}, {"pr-target", "pr"}}, ws, api_->url(), "feature",
                                            15, "good-token", {"SHOP_PR_SCHEMA=main"}));
  EXPECT_EQ(shared.at("conclusion"), "failure") << shared.at("log");
  EXPECT_NE(shared.at("log").get<std::string>().find("shop.main is production's schema too, so it was not dropped"),
            std::string::npos)
      << shared.at("log");
  EXPECT_EQ(duckdb_scalar(db, tables), production);
}

// Issue 39, item 16: until a version is published, the action from a copy of ci/ inside the
// repository, the CLI from the archive `make dist` makes, fetched from a file:// URL and checked
// (docs/ci.md, "Before a version is published").
TEST_F(GitHubAction, AVendoredCopyRunsWithTheArchiveOfMakeDist) {
  DbtProject copy = DbtProject::copy_of(*project_);
  const fs::path ws = copy.dir().parent_path();
  const fs::path vendor = ws / "vendor" / "ods";
  const std::string version = make_dist_archive(vendor);
  ASSERT_FALSE(version.empty());
  fs::create_directories(ws / ".ods");
  fs::copy(ci_source_dir(), ws / ".ods" / "ci", fs::copy_options::recursive);
  auto spec = shop_action_spec({{"command", "run"},
                                {"ods-path", ""},
                                {"ods-version", version},
                                {"ods-download-url", "file://" + vendor.string()}},
                               ws, api_->url(), "main", 0, "good-token");
  auto r = run_action(spec, ws / ".ods" / "ci" / "github" / "action.yml");
  ASSERT_EQ(r.at("conclusion"), "success") << r.at("log");
  EXPECT_NE(step(r, "Install ods").at("log").get<std::string>().find("verified (sha256"), std::string::npos);
  EXPECT_NE(step(r, "Install ods").at("outputs").at("ods").get<std::string>().find("ods-" + version + "-linux-x86_64"),
            std::string::npos);
  EXPECT_EQ(r.at("outputs").at("exit-code"), "0");
  EXPECT_GT(std::stoi(r.at("outputs").at("built").get<std::string>()), 5) << r.at("summary");  // no state yet
}

}  // namespace
}  // namespace ods::testing
