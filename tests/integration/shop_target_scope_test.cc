// One project, one scope per target (issue 39, item 4), on examples/shop's recorded baseline
// (DuckDB, real dbt): a command without --target and one with `--target dev`, the profile's
// default, plan against the same state; a target the profile lacks is refused in dbt's words
// before anything runs; state an earlier ODS recorded as `shop/default` is found, and moved to
// `shop/dev` by the next run that records; the first run of a scope says so.
#include <gtest/gtest.h>

#include <map>

#include "harness/shop_baseline.h"
#include "ods/base/sha256.h"

namespace ods::testing {
namespace {

using nlohmann::json;

std::map<std::string, std::string> decisions(const json& plan) {
  std::map<std::string, std::string> out;
  for (const auto& e : plan.at("entries"))
    out[e.value("name", "")] = e.value("action", "") + ":" + e.at("reasons").at(0).value("code", "");
  return out;
}

int never_built(const json& plan) {
  int n = 0;
  for (const auto& [name, decision] : decisions(plan)) n += decision == "build:never_built" ? 1 : 0;
  return n;
}

class ShopTargetScope : public ::testing::Test {
 protected:
  ShopTargetScope() : project_(DbtProject::copy_of(shop_baseline())) {}

  std::string state_digest() const {
    return ods::sha256_hex(project_.read(".ods/state.db")) + ods::sha256_hex(project_.read(".ods/state.db-wal"));
  }
  // Renames the recorded scope as an earlier ODS named it (python's sqlite3, from the venv).
  void rename_scope(const std::string& from, const std::string& to) const {
    const std::string script =
        "import sqlite3,sys\ndb=sqlite3.connect(sys.argv[1])\n"
        "for t in ('snapshots','heads','runs'): db.execute(f'update {t} set scope=? where scope=?', (sys.argv[3], "
        "sys.argv[2]))\ndb.commit()\n";
    ProcessResult r = run_process({(project_.venv() / "python").string(), "-c", script,
                                   (project_.dir() / ".ods" / "state.db").string(), from, to},
                                  project_.dir());
    ASSERT_EQ(r.exit_code, 0) << r.output << r.errors;
  }

  DbtProject project_;
};

TEST_F(ShopTargetScope, NoTargetAndTheProfilesDefaultTargetByNameAreOneScope) {
  const json plain = project_.plan_json();
  const json named = project_.plan_json({"--target", "dev"});
  EXPECT_EQ(plain.value("scope", ""), "shop/dev");
  EXPECT_EQ(named.value("scope", ""), "shop/dev");
  EXPECT_EQ(never_built(named), 0) << named.dump(2);
  EXPECT_EQ(decisions(plain), decisions(named));
}

TEST_F(ShopTargetScope, ATargetTheProfileLacksIsRefusedBeforeAnythingRuns) {
  const std::string before = state_digest();
  for (const std::vector<std::string>& command : {std::vector<std::string>{"state", "plan", "--target", "nosuch"},
                                                  {"state", "run", "--target", "nosuch"},
                                                  {"state", "history", "--target", "nosuch"}}) {
    ProcessResult r = project_.ods(command);
    EXPECT_EQ(r.exit_code, 2) << command[1] << "\n" << r.output << r.errors;
    EXPECT_NE(r.errors.find("The profile 'shop' does not have a target named 'nosuch'"), std::string::npos)
        << command[1] << ": " << r.errors;
    EXPECT_NE(r.errors.find(" - dev\n - pr\n - pg\n - pg_pr"), std::string::npos) << r.errors;
    EXPECT_EQ(r.output.find("dbt"), std::string::npos) << "nothing may run: " << r.output;
  }
  EXPECT_EQ(state_digest(), before);
}

TEST_F(ShopTargetScope, StateAnEarlierOdsRecordedAsDefaultIsReadAndMovedByTheNextRun) {
  rename_scope("shop/dev", "shop/default");
  ProcessResult plan = project_.ods({"state", "plan", "--format", "json"});
  ODS_ASSERT_OK(plan);
  EXPECT_EQ(never_built(json::parse(plan.output)), 0) << plan.output;
  EXPECT_NE(plan.errors.find("reading shop/default"), std::string::npos) << plan.errors;

  ProcessResult run = project_.ods({"state", "run", "--profiles-dir", project_.dir().string()});
  ODS_ASSERT_OK(run);
  EXPECT_NE(run.errors.find("copied shop/default to shop/dev"), std::string::npos) << run.errors;
  EXPECT_EQ(run.output.find("never_built"), std::string::npos) << run.output;
  EXPECT_EQ(run.output.find("no state recorded yet"), std::string::npos) << run.output;

  ProcessResult history = project_.ods({"state", "history", "--format", "json", "--limit", "0"});
  ODS_ASSERT_OK(history);
  const json doc = json::parse(history.output);
  EXPECT_EQ(doc.value("scope", ""), "shop/dev");
  EXPECT_GE(doc.at("snapshots").size(), 3u) << "the baseline's two records and the run's";
  EXPECT_EQ(history.errors.find("reading shop/default"), std::string::npos) << "moved once: " << history.errors;
}

TEST_F(ShopTargetScope, TheFirstRunOfAScopeSaysSoAndWhichTarget) {
  ProcessResult first = project_.ods({"state", "run", "--target", "pr", "--profiles-dir", project_.dir().string()});
  ODS_ASSERT_OK(first);
  EXPECT_NE(first.output.find("no state recorded yet for shop/pr (target pr)"), std::string::npos) << first.output;
  ProcessResult again = project_.ods({"state", "run", "--profiles-dir", project_.dir().string()});
  ODS_ASSERT_OK(again);
  EXPECT_EQ(again.output.find("no state recorded yet"), std::string::npos) << again.output;
}

}  // namespace
}  // namespace ods::testing
