// The commands agree (issue 39 item 3): right after `ods state run`s that reused fct_orders,
// `ods state explain` gives the decision `ods state run --dry-run` gives, and `ods state diff`
// sees the code the run fingerprinted. Both read only target/ before, which the compile key
// leaves without compiled code for every node it spared: explain said `build …
// incomplete_fingerprint … run dbt compile` and diff `sql removed` for every node.
// Real dbt on a copy of examples/shop, DuckDB.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "harness/shop_baseline.h"

namespace ods::testing {
namespace {

// The entry named `name` of a plan document's entries; null when there is none.
nlohmann::json entry_named(const nlohmann::json& entries, const std::string& name) {
  for (const auto& e : entries)
    if (e.at("name") == name) return e;
  return nullptr;
}

TEST(ShopCommandsAgree, ExplainAndDiffAfterARunSayWhatTheNextRunDoes) {
  DbtProject p("shop");
  ASSERT_EQ(p.generate_data().exit_code, 0);
  // The first run builds everything and records the compile keys; the second reuses by them
  // (nothing is compiled), so target/ holds no compiled code for the nodes it spared.
  for (int run = 0; run < 2; ++run) ODS_ASSERT_OK(p.ods({"state", "run", "--profiles-dir", p.dir().string()}));

  ProcessResult dry = p.ods({"state", "run", "--dry-run", "--format", "json", "--profiles-dir", p.dir().string()});
  ODS_ASSERT_OK(dry);
  const auto next = entry_named(nlohmann::json::parse(dry.output).at("plan").at("entries"), "fct_orders");
  ASSERT_FALSE(next.is_null()) << dry.output;
  ASSERT_EQ(next.at("action"), "reuse") << next.dump(2);

  // dbt finds the project's profiles.yml in the working directory, as a user's shell does.
  ProcessResult explain = p.ods({"state", "explain", "fct_orders", "--format", "json"});
  ODS_ASSERT_OK(explain);
  const auto one = entry_named(nlohmann::json::parse(explain.output).at("entries"), "fct_orders");
  ASSERT_FALSE(one.is_null()) << explain.output;
  EXPECT_EQ(one.at("action"), next.at("action")) << one.dump(2);
  EXPECT_EQ(one.at("reasons").at(0).at("code"), next.at("reasons").at(0).at("code")) << one.dump(2);
  ProcessResult text = p.ods({"state", "explain", "fct_orders"});
  ODS_ASSERT_OK(text);
  EXPECT_EQ(text.output.find("incomplete_fingerprint"), std::string::npos) << text.output;

  ProcessResult diff = p.ods({"state", "diff", "--format", "json"});
  ODS_ASSERT_OK(diff);
  for (const auto& change : nlohmann::json::parse(diff.output).at("changes")) {
    EXPECT_NE(change.at("change"), "code") << "the run changed no code, diff says: " << change.dump();
    if (!change.contains("removed")) continue;
    for (const auto& removed : change.at("removed")) {
      EXPECT_NE(removed, "sql") << change.dump();
    }
  }
}

}  // namespace
}  // namespace ods::testing
