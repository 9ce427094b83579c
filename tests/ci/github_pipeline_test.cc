// The GitHub examples as a team's pipeline, in the order the platform runs them: a push to main
// (run-sqlite.yml: builds, saves the state), a pull request (pr-plan.yml: restores that state and
// reuses; one comment), a second push to it (the same comment updated), a pull request from a fork
// (no secrets: the step succeeds with a summary saying why), the merge (run-sqlite.yml: builds
// what changed, reuses the rest).
//
// Each job runs ci/github/action.yml through the harness with the `with:` of the example workflow
// (only the paths and the ods binary replaced), in a fresh checkout of examples/shop: nothing
// carries over between jobs but the warehouse (a DuckDB file outside the checkouts, standing in
// for a warehouse server), the actions/cache entries the harness keeps as GitHub does, and the
// comments on the API stand-in. The project declares a (local) dbt package, so dbt deps must run
// and its packages come from the cache after the first job.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>

#include "ci_fixture.h"

namespace ods::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kColumn = "o.amount,\n";
constexpr const char* kChanged = "o.amount,\n    o.amount * 2 as doubled_amount,\n";

// The example's inputs for this machine: examples/shop at shop/, its own target; `state` names a
// secret that is not set here (the cached SQLite path), and the ods binary comes from ods-path.
nlohmann::json adapted(nlohmann::json with, const std::string& target) {
  with.erase("ods-version");
  with.erase("ods-download-url");
  with["project-dir"] = "shop";
  with["profiles-dir"] = "shop";
  with["target"] = target;
  if (with.contains("state")) {
    EXPECT_NE(with["state"].get<std::string>().find("secrets."), std::string::npos) << "state must come from a secret";
    with["state"] = "";
  }
  return with;
}

int count(const nlohmann::json& outputs, const char* name) {
  const std::string text = outputs.value(name, "");
  return text.empty() ? -1 : std::stoi(text);
}

const nlohmann::json* uses(const nlohmann::json& result, const std::string& step_name) {
  for (const auto& u : result.at("uses"))
    if (u.at("name") == step_name) return &u;
  return nullptr;
}

class GitHubPipeline : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(source_.dir() / "local_packages" / "ods_demo" / "macros");
    source_.write("local_packages/ods_demo/dbt_project.yml",
                  "name: ods_demo\nversion: \"1.0.0\"\nconfig-version: 2\nmacro-paths: [\"macros\"]\n");
    source_.write("local_packages/ods_demo/macros/ods_demo_one.sql", "{% macro ods_demo_one() %}1{% endmacro %}\n");
    source_.write("packages.yml", "packages:\n  - local: local_packages/ods_demo\n");
    ProcessResult loaded = warehouse_.generate_data();
    ASSERT_EQ(loaded.exit_code, 0) << loaded.output << loaded.errors;
    run_inputs_ = example_action_inputs("run-sqlite.yml");
    plan_inputs_ = example_action_inputs("pr-plan.yml");
  }

  // One job: a fresh checkout of the source (as it is now), the action with `inputs`.
  nlohmann::json job(const nlohmann::json& inputs, const std::string& branch, int pr, int run_id,
                     const std::string& token = "good-token", const nlohmann::json& event = nullptr) {
    checkouts_.push_back(std::make_unique<DbtProject>(DbtProject::copy_of(source_)));
    const fs::path ws = checkouts_.back()->dir().parent_path();
    auto spec = shop_action_spec(
        inputs, ws, api_.url(), branch, pr, token,
        {"SHOP_DUCKDB_PATH=" + (warehouse_.dir() / "shop.duckdb").string(), "GITHUB_RUN_ID=" + std::to_string(run_id)});
    spec["cache_dir"] = cache_.path().string();
    if (!event.is_null()) spec["event"] = event;
    return run_action(spec);
  }

  ApiStandIn api_{ApiStandIn::Options{.seed = 35, .files = {}}};
  DbtProject source_{"shop"};
  DbtProject warehouse_{"shop"};
  TempDir cache_{"ghcache"};
  std::vector<std::unique_ptr<DbtProject>> checkouts_;
  nlohmann::json run_inputs_;
  nlohmann::json plan_inputs_;
};

TEST_F(GitHubPipeline, PushThenPullRequestThenPushAgainThenAForkThenTheMerge) {
  // One target, so one state scope, across the plan and the run.
  ASSERT_EQ(run_inputs_.value("target", ""), plan_inputs_.value("target", ""))
      << "run-sqlite.yml and pr-plan.yml must name the same target, or the plan finds no recorded state";
  ASSERT_FALSE(run_inputs_.value("target", "").empty());
  const auto run_with = adapted(run_inputs_, "dev");
  const auto plan_with = adapted(plan_inputs_, "dev");

  // 1. Push to main: builds everything, runs dbt deps, saves the state and the packages.
  auto push = job(run_with, "main", 0, 2001);
  ASSERT_EQ(push.at("conclusion"), "success") << push.at("log");
  const int all = count(push.at("outputs"), "built");
  EXPECT_GT(all, 5);
  EXPECT_EQ(count(push.at("outputs"), "reused"), 0);
  EXPECT_EQ(push.at("outputs").at("exit-code"), "0");
  EXPECT_EQ(push.at("outputs").at("outcome"), "success");
  EXPECT_NE(step(push, "ods").at("log").get<std::string>().find(" deps --project-dir"), std::string::npos)
      << step(push, "ods").at("log");
  ASSERT_NE(uses(push, "Save the SQLite state"), nullptr) << push.at("uses").dump(1);
  EXPECT_EQ(uses(push, "Save the SQLite state")->value("saved", false), true);
  ASSERT_NE(uses(push, "Save the dbt packages"), nullptr) << push.at("uses").dump(1);
  EXPECT_EQ(uses(push, "Save the dbt packages")->value("saved", false), true);

  // 2. A pull request changes fct_orders. Someone else's comment carries ODS's marker: it is
  // neither updated nor does it stop the plan from writing its own.
  const std::string comments = "/repos/shop-co/analytics/issues/21/comments";
  const std::string marker = comment_marker("shop|dev|plan");
  const long long planted = api_.plant_comment(comments, marker + "\nnot from ODS", false);
  ASSERT_GT(planted, 0);
  source_.replace_in("models/marts/fct_orders.sql", kColumn, kChanged);
  auto opened = job(plan_with, "feature", 21, 2002);
  ASSERT_EQ(opened.at("conclusion"), "success") << opened.at("log");
  ASSERT_NE(uses(opened, "Restore the SQLite state"), nullptr);
  EXPECT_EQ(uses(opened, "Restore the SQLite state")->value("restored", ""), "ods-state-main-2001-1")
      << opened.at("uses").dump(1);
  EXPECT_EQ(uses(opened, "Save the SQLite state"), nullptr) << "a plan saves no state";
  EXPECT_NE(step(opened, "ods").at("log").get<std::string>().find("dbt packages from the cache"), std::string::npos)
      << step(opened, "ods").at("log");
  const int built = count(opened.at("outputs"), "built");
  const int reused = count(opened.at("outputs"), "reused");
  EXPECT_GE(built, 1);
  EXPECT_GT(reused, all / 2) << "the plan started from the run's state: " << opened.at("summary");
  EXPECT_NE(opened.at("outputs").at("selection").get<std::string>().find("fct_orders"), std::string::npos);
  auto posts = api_.requests("POST");
  ASSERT_EQ(posts.size(), 2u) << "the planted comment and the plan's own";
  EXPECT_EQ(posts[1].at("headers").at("authorization"), "Bearer good-token");
  EXPECT_EQ(posts[1].at("body").at("body").get<std::string>().rfind(marker, 0), 0u);
  EXPECT_TRUE(api_.requests("PATCH").empty()) << "the planted comment was updated";

  // 3. Another push to the pull request: the plan's comment is updated in place.
  auto again = job(plan_with, "feature", 21, 2003);
  ASSERT_EQ(again.at("conclusion"), "success") << again.at("log");
  EXPECT_EQ(api_.requests("POST").size(), 2u) << "a second comment";
  const auto patches = api_.requests("PATCH");
  ASSERT_EQ(patches.size(), 1u);
  EXPECT_NE(patches[0].at("path"), "/repos/shop-co/analytics/issues/comments/" + std::to_string(planted));
  EXPECT_EQ(patches[0].at("headers").at("authorization"), "Bearer good-token");

  // 4. A pull request from a fork: no secrets, a read-only token. Neutral: the step succeeds with a
  // summary saying why; nothing runs, nothing is written.
  auto fork_event = event_payload(22);
  fork_event["pull_request"]["head"]["repo"] = {{"full_name", "stranger/analytics"}, {"fork", true}};
  auto fork = job(plan_with, "patch-1", 22, 2004, "fork-token", fork_event);
  ASSERT_EQ(fork.at("conclusion"), "success") << fork.at("log");
  EXPECT_EQ(fork.at("outputs").at("outcome"), "fork");
  EXPECT_EQ(fork.at("outputs").at("exit-code"), "");
  EXPECT_NE(fork.at("summary").get<std::string>().find("needs production read access"), std::string::npos)
      << fork.at("summary");
  EXPECT_NE(fork.at("summary").get<std::string>().find("stranger/analytics"), std::string::npos);
  EXPECT_EQ(step(fork, "ods").at("log").get<std::string>().find(" deps --project-dir"), std::string::npos);
  EXPECT_EQ(api_.requests("POST").size(), 2u);
  EXPECT_EQ(api_.requests("PATCH").size(), 1u);

  // 5. The merge: the run restores main's state, builds what changed, reuses the rest.
  auto merged = job(run_with, "main", 0, 2005);
  ASSERT_EQ(merged.at("conclusion"), "success") << merged.at("log");
  EXPECT_EQ(uses(merged, "Restore the SQLite state")->value("restored", ""), "ods-state-main-2001-1");
  EXPECT_GE(count(merged.at("outputs"), "built"), 1);
  EXPECT_GT(count(merged.at("outputs"), "reused"), all / 2) << merged.at("summary");
  EXPECT_NE(merged.at("outputs").at("selection").get<std::string>().find("fct_orders"), std::string::npos);
  EXPECT_EQ(uses(merged, "Save the SQLite state")->value("saved", false), true);
}

}  // namespace
}  // namespace ods::testing
