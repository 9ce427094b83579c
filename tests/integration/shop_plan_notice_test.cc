// `ods state plan` says what it cannot see (examples/shop, DuckDB, built by `ods state run`):
// right after a run, the manifest has compiled code only for what the run's `dbt build
// --select` built and no source was measured by `dbt source freshness`, so the plan's header
// says so and names `ods state run --dry-run`; after `dbt source freshness` and `dbt compile`
// the notice is gone and the plan agrees with the dry run wherever both have the evidence.
#include <gtest/gtest.h>

#include <memory>
#include <regex>

#include "harness/shop_baseline.h"

namespace ods::testing {
namespace {

// Data, then `ods state run` twice (the second: the steady state, which builds only dim_customers).
const DbtProject& run_baseline() {
  static const std::unique_ptr<DbtProject> baseline = [] {
    auto p = std::make_unique<DbtProject>("shop");
    ProcessResult data = p->generate_data();
    EXPECT_EQ(data.exit_code, 0) << data.errors;
    for (int i = 0; i < 2; ++i) {
      ProcessResult r = p->ods({"state", "run", "--profiles-dir", p->dir().string()});
      EXPECT_EQ(r.exit_code, 0) << r.output << r.errors;
    }
    return p;
  }();
  return *baseline;
}

class ShopPlanNotice : public ::testing::Test {
 protected:
  ShopPlanNotice() : project_(DbtProject::copy_of(run_baseline())) {}
  DbtProject project_;
};

TEST_F(ShopPlanNotice, RightAfterARunThePlanSaysWhatItCannotSeeAndNamesTheDryRun) {
  ProcessResult text = project_.ods({"state", "plan"});
  ODS_ASSERT_OK(text);
  // The header: the scope line, then the one sentence, before the groups.
  const auto sentence = text.output.find("This plan sees only the artifacts in target/");
  ASSERT_NE(sentence, std::string::npos) << text.output;
  EXPECT_LT(sentence, text.output.find("BUILD (")) << text.output;
  const std::string line = text.output.substr(sentence, text.output.find('\n', sentence) - sentence);
  // The steady-state run built dim_customers only; what needs compiled code is the rest of
  // the SQL models and the snapshot.
  EXPECT_TRUE(std::regex_search(line, std::regex("[1-8] of 9 nodes have no compiled code"))) << line;
  EXPECT_NE(line.find("no source has evidence of its data"), std::string::npos) << line;
  EXPECT_NE(line.find("`ods state run --dry-run` shows what the next run would do."), std::string::npos) << line;
  EXPECT_EQ(project_.plan_json().value("notice", ""), line);
}

TEST_F(ShopPlanNotice, AfterFreshnessAndCompileThereIsNoNoticeAndThePlanAgreesWithTheDryRun) {
  refresh_and_compile(project_);
  ProcessResult text = project_.ods({"state", "plan"});
  ODS_ASSERT_OK(text);
  EXPECT_EQ(text.output.find("This plan sees only"), std::string::npos) << text.output;
  const nlohmann::json plan = project_.plan_json();
  EXPECT_FALSE(plan.contains("notice")) << plan.dump(2);

  ProcessResult dry =
      project_.ods({"state", "run", "--dry-run", "--format", "json", "--profiles-dir", project_.dir().string()});
  ODS_ASSERT_OK(dry);
  const nlohmann::json next_run = nlohmann::json::parse(dry.output).at("plan");
  // Source evidence differs in kind: the run recorded each source's content version (its
  // probe), while the plan has only what `dbt source freshness` measured (max loaded_at, and
  // nothing for the sources without loaded_at), so a source's readers build in the plan for
  // want of comparable evidence (missing_data_evidence, new_upstream_data and what is
  // downstream of them). The nodes whose evidence both have decide alike.
  int compared = 0;
  for (const auto& e : plan.at("entries")) {
    const std::string code = e.at("reasons").at(0).at("code");
    if (code == "missing_data_evidence" || code == "new_upstream_data") continue;
    EXPECT_EQ(decision(entry(next_run, e.at("name"))), decision(e)) << e.at("name");
    ++compared;
  }
  EXPECT_GE(compared, 2) << plan.dump(2);  // country_codes (no source), dim_customers (run context)
  EXPECT_EQ(decision(entry(plan, "country_codes")), "reuse:unchanged");
  EXPECT_EQ(decision(entry(next_run, "stg_orders")), "reuse:unchanged") << "the dry run measures the source";
}

}  // namespace
}  // namespace ods::testing
