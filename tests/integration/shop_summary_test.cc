// The CI outputs of `ods state run` on examples/shop (DuckDB): --summary FILE and --json-file
// FILE beside the normal output, the "summary" object matching the run, the Markdown of a run
// that reuses, and a dry run that writes nothing to the state (bytes compared).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/shop_baseline.h"

namespace ods::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> names;
  if (!fs::exists(dir)) return names;
  for (const auto& f : fs::directory_iterator(dir)) names.push_back(f.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

class ShopSummary : public ::testing::Test {
 protected:
  void SetUp() override {
    const DbtProject& baseline = shop_baseline();
    ASSERT_FALSE(::testing::Test::HasFailure()) << "the shop baseline failed";
    project_.emplace(DbtProject::copy_of(baseline));
  }

  // `ods state run <extra> --summary <dir>/<name>.md --json-file <dir>/<name>.json`.
  ProcessResult run(const std::string& name, std::vector<std::string> extra = {}) const {
    std::vector<std::string> args{"state",     "run",    "--profiles-dir", project_->dir().string(),
                                  "--summary", md(name), "--json-file",    json_path(name)};
    args.insert(args.end(), extra.begin(), extra.end());
    return project_->ods(args);
  }
  std::string md(const std::string& name) const { return (project_->dir() / (name + ".md")).string(); }
  std::string json_path(const std::string& name) const { return (project_->dir() / (name + ".json")).string(); }
  json document(const std::string& name) const {
    json doc = json::parse(slurp(json_path(name)), nullptr, false);
    EXPECT_FALSE(doc.is_discarded()) << slurp(json_path(name));
    return doc;
  }
  fs::path state_dir() const { return project_->dir() / ".ods"; }

  std::optional<DbtProject> project_;
};

int build_entries(const json& plan) {
  int n = 0;
  for (const auto& e : plan.at("entries")) n += e.at("action") == "build" ? 1 : 0;
  return n;
}

TEST_F(ShopSummary, RunWritesTheSummaryAndTheJsonBesideTheTableAndASecondRunBuildsOnlyWhatMust) {
  ODS_ASSERT_OK(project_->generate_data({"--append-orders", "5"}));
  ProcessResult first = run("first");
  ODS_ASSERT_OK(first);
  EXPECT_NE(first.output.find("BUILD ("), std::string::npos) << "the text table stays in the log:\n" << first.output;
  const json doc = document("first");
  const json& summary = doc.at("summary");
  const json& counts = doc.at("run").at("counts");
  for (const char* key : {"built", "reused", "failed", "skipped"}) EXPECT_EQ(summary.at(key), counts.at(key)) << key;
  EXPECT_EQ(summary.at("built"), build_entries(doc.at("plan")));
  EXPECT_GE(summary.at("built").get<int>(), 3) << "stg_orders, stg_payments, orders_daily read the new orders";
  EXPECT_EQ(summary.at("selection"), doc.at("plan").at("select"));
  EXPECT_EQ(summary.at("dry_run"), false);
  EXPECT_EQ(summary.at("command"), "run");
  EXPECT_EQ(summary.at("outcome"), "success");
  EXPECT_EQ(summary.at("scope"), doc.at("plan").at("scope"));
  EXPECT_EQ(summary.at("state"), (json{{"kind", "sqlite"}, {"location", (state_dir() / "state.db").string()}}));
  const std::string markdown = slurp(md("first"));
  EXPECT_TRUE(markdown.starts_with("## ODS run for " + summary.at("scope").get<std::string>())) << markdown;
  EXPECT_NE(markdown.find("#### new\\_upstream\\_data ("), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("dbt build --select " + summary.at("selection").get<std::string>()), std::string::npos);
  EXPECT_EQ(markdown.find("Nothing to build"), std::string::npos);

  ProcessResult second = run("second");
  ODS_ASSERT_OK(second);
  const json again = document("second");
  for (const auto& e : again.at("plan").at("entries")) {
    if (e.at("action") == "build") {
      EXPECT_EQ(e.at("reasons").at(0).at("code"), "reads_run_context") << e.dump();
    }
  }
  EXPECT_EQ(again.at("summary").at("built"), build_entries(again.at("plan")));
  EXPECT_EQ(again.at("summary").at("built"), 1) << "only dim_customers, which reads the run context";
  EXPECT_GT(again.at("summary").at("time_saved_seconds").get<double>(), 0) << "the first run timed the nodes reused";
  EXPECT_EQ(again.at("summary").at("time_saved_seconds"), again.at("run").at("time_saved_seconds"));
  const std::string markdown2 = slurp(md("second"));
  EXPECT_NE(markdown2.find("### Build (1)"), std::string::npos) << markdown2;
  EXPECT_NE(markdown2.find("reads\\_run\\_context"), std::string::npos) << markdown2;
  EXPECT_NE(markdown2.find("<details><summary>Reuse ("), std::string::npos) << markdown2;
}

TEST_F(ShopSummary, DryRunChangesNoByteOfTheStateAndPrintsMarkdown) {
  const fs::path db = state_dir() / "state.db";
  ASSERT_TRUE(fs::exists(db));
  const std::string before = slurp(db);
  const auto files = listing(state_dir());
  ProcessResult dry = run("dry", {"--dry-run", "--format", "markdown"});
  ODS_ASSERT_OK(dry);
  EXPECT_EQ(slurp(db), before) << "a dry run writes nothing: no migration, no ledger row";
  EXPECT_EQ(listing(state_dir()), files) << "no -wal or -shm file left";
  EXPECT_EQ(dry.output, slurp(md("dry"))) << "--format markdown prints what --summary writes";
  EXPECT_TRUE(dry.output.starts_with("## ODS plan for ")) << dry.output;
  EXPECT_NE(dry.output.find("`ods state run --dry-run`"), std::string::npos) << dry.output;
  const json doc = document("dry");
  EXPECT_TRUE(doc.at("run").is_null());
  EXPECT_EQ(doc.at("summary").at("dry_run"), true);
  EXPECT_EQ(doc.at("summary").at("built"), build_entries(doc.at("plan")));
  EXPECT_EQ(doc.at("summary").at("reused"), doc.at("plan").at("summary").at("reuse"));

  // Without a state file: planned against nothing, and nothing is created.
  fs::remove_all(state_dir());
  ProcessResult fresh = run("fresh", {"--dry-run"});
  ODS_ASSERT_OK(fresh);
  EXPECT_FALSE(fs::exists(state_dir())) << "a dry run creates no state";
  const json nothing = document("fresh");
  EXPECT_EQ(nothing.at("summary").at("reused"), 0);
  EXPECT_EQ(nothing.at("summary").at("time_saved_seconds"), 0.0);
}

TEST_F(ShopSummary, BadSummaryPathsAreRefusedBeforeAnythingRuns) {
  ProcessResult r = project_->ods({"state", "run", "--summary", (project_->dir() / "no/such/dir/s.md").string()});
  EXPECT_EQ(r.exit_code, 2) << r.output << r.errors;
  EXPECT_NE(r.errors.find("--summary"), std::string::npos) << r.errors;
  ProcessResult history = project_->ods({"state", "history", "--format", "markdown"});
  EXPECT_EQ(history.exit_code, 2);
  EXPECT_NE(history.errors.find("--format markdown is for plan, run and test"), std::string::npos) << history.errors;
}

}  // namespace
}  // namespace ods::testing
