// The Markdown summary (plan_markdown.h): a fixed plan with every section against a golden
// file, escaping, the nothing-to-build line, caps and the size limit on 5,000-node plans.
#include "plan_markdown.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/source_paths.h"

namespace ods::cli {
namespace {

namespace fs = std::filesystem;
using planner::Action;

planner::PlanEntry entry(const std::string& name, Action action, const std::string& code, const std::string& sentence,
                         const std::string& type = "model") {
  planner::PlanEntry e;
  e.id = type + ".shop." + name;
  e.name = name;
  e.resource_type = type;
  e.action = action;
  e.reasons.push_back({code, sentence});
  return e;
}

CommandSummary summary_of(const planner::ExecutionPlan& plan, const std::string& command, bool dry_run) {
  CommandSummary s;
  s.command = command;
  s.dry_run = dry_run;
  s.scope = plan.scope;
  s.state = {"postgresql", "db.internal:5432/ods"};
  s.built = plan.count(Action::build);
  s.reused = plan.count(Action::reuse);
  s.selection = plan.select;
  return s;
}

// A plan with every section: two BUILD groups (one over the row cap), REUSE, warnings, a
// failure with dbt's error text, the selection, names that need escaping.
MarkdownInput every_section() {
  planner::ExecutionPlan plan;
  plan.scope = "shop/prod";
  plan.entries.push_back(entry("orders", Action::build, "fingerprint_changed", "Code changed: sql."));
  plan.entries.back().reasons.push_back({"new_upstream_data", "New data in source shop.raw_orders."});
  plan.entries.push_back(
      entry("weird|name<b>", Action::build, "fingerprint_changed", "Code changed: config *and* sql_."));
  for (int i = 0; i < 4; ++i)
    plan.entries.push_back(entry("stg_" + std::to_string(i), Action::build, "never_built",
                                 "ODS has no record of a successful build of this node in shop/prod."));
  plan.entries.push_back(entry("customers", Action::reuse, "unchanged", "Code and inputs unchanged since run ods-1."));
  plan.entries.push_back(entry("raw_items", Action::reuse, "unchanged", "Code and inputs unchanged.", "seed"));
  plan.select = "orders weird|name<b> stg_0 stg_1 stg_2 stg_3";
  plan.warnings = {"source shop.raw_orders: no data version (probe failed: permission denied)",
                   "source shop.raw_items: version unknown <no max(updated_at)>"};
  CommandSummary s = summary_of(plan, "run", false);
  s.built = 5;
  s.failed = 1;
  s.skipped = 0;
  s.time_saved_seconds = 125.5;
  s.outcome = "partial";
  MarkdownInput in = markdown_input(plan, s);
  in.failed_nodes = {"stg_3 (error)"};
  in.dbt_errors = "Database Error in model stg_3 (models/stg_3.sql)\n  relation \"raw.items\" does not exist\n```";
  return in;
}

fs::path golden_path() { return ods::testing::source_dir() / "cli/tests/cli/data" / "plan_summary.golden.md"; }

TEST(PlanMarkdown, EverySectionMatchesTheGoldenFile) {
  MarkdownLimits limits;
  limits.rows_per_group = 3;  // the never_built group shows the "… and N more" line
  const std::string text = render_markdown(every_section(), limits);
  if (std::getenv("ODS_UPDATE_GOLDEN") != nullptr) std::ofstream(golden_path(), std::ios::binary) << text;
  std::ifstream in(golden_path(), std::ios::binary);
  ASSERT_TRUE(in) << golden_path() << " is missing (ODS_UPDATE_GOLDEN=1 writes it)";
  std::stringstream golden;
  golden << in.rdbuf();
  EXPECT_EQ(text, golden.str()) << "rendered:\n" << text;
}

TEST(PlanMarkdown, EscapesMarkupInNamesSentencesAndWarnings) {
  EXPECT_EQ(escape_markdown("a|b<c>&d"), "a\\|b&lt;c&gt;&amp;d");
  EXPECT_EQ(escape_markdown("*x* _y_ `z` [l](u) ~s~ $m$"), "\\*x\\* \\_y\\_ \\`z\\` \\[l\\](u) \\~s\\~ \\$m\\$");
  EXPECT_EQ(escape_markdown("line\nbreak"), "line break");
  EXPECT_EQ(escape_markdown("# not a heading"), "\\# not a heading");
  EXPECT_EQ(escape_markdown("- not a list - x"), "\\- not a list - x");
  EXPECT_EQ(escape_markdown("<details>"), "&lt;details&gt;");
  // Cut on a UTF-8 boundary: "é" is two bytes and is not split.
  EXPECT_EQ(escape_markdown("aé", 2), "a…");
  const std::string text = render_markdown(every_section());
  EXPECT_NE(text.find("| weird\\|name&lt;b&gt; | model |"), std::string::npos) << text;
  const std::string quoted = "dbt build --select orders ";
  EXPECT_EQ(text.find("weird|name"), text.find(quoted + "weird|name") + quoted.size())
      << "only the quoted selection shows the raw name";
}

TEST(PlanMarkdown, AllReusedSaysSoInOneLineAtTheTop) {
  planner::ExecutionPlan plan;
  plan.scope = "shop/dev";
  for (int i = 0; i < 3; ++i)
    plan.entries.push_back(entry("m" + std::to_string(i), Action::reuse, "unchanged", "Same."));
  const std::string text = render_markdown(markdown_input(plan, summary_of(plan, "plan", false)));
  const auto title_end = text.find("\n\n");
  EXPECT_EQ(text.substr(title_end + 2, text.find('\n', title_end + 2) - title_end - 2),
            "**Nothing to build: all 3 nodes reused.**")
      << text;
  EXPECT_EQ(text.find("### Build"), std::string::npos);
  EXPECT_NE(text.find("<details><summary>Reuse (3)</summary>"), std::string::npos);
  EXPECT_EQ(text.find("dbt build --select"), std::string::npos) << "no selection when nothing builds";
}

TEST(PlanMarkdown, ABuildingPlanHasNoNothingToBuildLine) {
  planner::ExecutionPlan plan;
  plan.scope = "shop/dev";
  plan.entries.push_back(entry("m", Action::build, "never_built", "Never built."));
  plan.select = "m";
  const std::string text = render_markdown(markdown_input(plan, summary_of(plan, "plan", false)));
  EXPECT_EQ(text.find("Nothing to build"), std::string::npos) << text;
  EXPECT_NE(text.find("### Build (1)"), std::string::npos) << text;
  EXPECT_NE(text.find("nothing was built or recorded"), std::string::npos) << text;
}

// How sure the sources' evidence is: each source counted once, by the exactness of the version
// chosen for it, under the totals (and in the plan table, plan_format.cc).
TEST(PlanMarkdown, TheSourcesEvidenceIsCountedByExactnessUnderTheTotals) {
  planner::ExecutionPlan plan;
  plan.scope = "shop/pg";
  auto a = entry("stg_orders", Action::reuse, "unchanged", "Same.");
  a.evidence.push_back({"version_strategy", "source.shop.raw.orders", "relation_versions", planner::Exactness::semantic,
                        "postgres_statistics"});
  a.evidence.push_back(
      {"version_strategy", "source.shop.raw.customers", "relation_versions", planner::Exactness::exact, "c"});
  auto b = entry("stg_payments", Action::build, "missing_data_evidence", "No version.");
  b.evidence.push_back({"version_strategy", "source.shop.raw.payments", "none: the source counts as changed",
                        planner::Exactness::none, "version choice"});
  b.evidence.push_back({"version_strategy", "source.shop.raw.orders", "relation_versions", planner::Exactness::semantic,
                        "postgres_statistics"});
  plan.entries = {a, b};
  const std::string text = render_markdown(markdown_input(plan, summary_of(plan, "plan", false)));
  EXPECT_NE(text.find("|\n\nSource evidence: 1 exact, 1 semantic, 1 unknown.\n"), std::string::npos) << text;
  plan.entries = {entry("m", Action::build, "never_built", "Never built.")};
  EXPECT_EQ(render_markdown(markdown_input(plan, summary_of(plan, "plan", false))).find("Source evidence"),
            std::string::npos);
}

// 5,000 nodes: every node built for one of 2,500 reasons with long sentences and names, and
// every node reused; both stay under GitLab's 1,000,000 characters and GitHub's 1 MiB.
TEST(PlanMarkdown, FiveThousandNodePlansStayUnderTheHostLimits) {
  const std::string long_text(900, 'x');
  for (Action action : {Action::build, Action::reuse}) {
    planner::ExecutionPlan plan;
    plan.scope = "big/prod";
    for (int i = 0; i < 5000; ++i) {
      plan.entries.push_back(entry("node_" + std::to_string(i) + "_" + long_text, action,
                                   "reason_" + std::to_string(i % 2500), "Because " + long_text + "|<"));
      plan.warnings.push_back("warning " + std::to_string(i) + " " + long_text);
      if (action == Action::build) plan.select += (plan.select.empty() ? "" : " ") + plan.entries.back().name;
    }
    CommandSummary s = summary_of(plan, "plan", false);
    MarkdownInput in = markdown_input(plan, s);
    in.dbt_errors = std::string(2'000'000, 'e');
    const std::string text = render_markdown(in);
    EXPECT_LT(text.size(), 1'000'000u);
    EXPECT_LT(text.size(), 1u << 20);
    EXPECT_NE(text.find("Scope big/prod"), std::string::npos) << "the footer always stays";
    EXPECT_NE(text.find("… and 4950 more."), std::string::npos) << "warnings and reuse rows capped at 50";
    if (action == Action::build) {
      EXPECT_NE(text.find("This summary was cut here"), std::string::npos) << "2,500 groups don't fit";
      EXPECT_EQ(text.find("Nothing to build"), std::string::npos);
    } else {
      EXPECT_NE(text.find("**Nothing to build: all 5000 nodes reused.**"), std::string::npos);
      EXPECT_NE(text.find("<details><summary>Reuse (5000)</summary>"), std::string::npos);
    }
    // The markup stays balanced: every opened <details> and code fence is closed.
    std::size_t opened = 0, closed = 0;
    for (auto at = text.find("<details>"); at != std::string::npos; at = text.find("<details>", at + 1)) ++opened;
    for (auto at = text.find("</details>"); at != std::string::npos; at = text.find("</details>", at + 1)) ++closed;
    EXPECT_EQ(opened, closed);
    std::size_t fences = 0;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);)
      if (line.starts_with("```")) ++fences;
    EXPECT_EQ(fences % 2, 0u);
  }
}

TEST(PlanMarkdown, ChecksRenderAsTestAndSkip) {
  planner::CheckPlan checks;
  checks.scope = "shop/dev";
  planner::CheckEntry run;
  run.id = "model.shop.orders";
  run.name = "orders";
  run.resource_type = "model";
  run.action = planner::CheckAction::run;
  run.reasons.push_back({"not_tested", "No pass of its checks is recorded since its current build."});
  planner::CheckEntry skip = run;
  skip.name = "customers";
  skip.action = planner::CheckAction::skip;
  skip.reasons = {{"unchanged", "Already tested."}};
  checks.entries = {run, skip};
  CommandSummary s;
  s.command = "test";
  s.scope = "shop/dev";
  s.state = {"sqlite", "/p/.ods/state.db"};
  s.built = 1;
  s.reused = 1;
  const std::string text = render_markdown(markdown_input(checks, s));
  EXPECT_NE(text.find("## ODS checks for shop/dev (`ods state test`)"), std::string::npos) << text;
  EXPECT_NE(text.find("### Test (1)"), std::string::npos) << text;
  EXPECT_NE(text.find("#### not\\_tested (1)"), std::string::npos) << text;
  EXPECT_NE(text.find("<details><summary>Skip (1)</summary>"), std::string::npos) << text;
}

}  // namespace
}  // namespace ods::cli
