// A reused relation is the one ODS recorded, on the Snowflake and BigQuery emulators (fakesnow,
// bqemulator) with the vendors' real dbt adapters (docs/warehouses.md, "Relation identity"): a
// view model added to the suite's copy of examples/warehouses, redefined outside ODS (`dbt run`
// with other code, the code then reverted; CREATE OR REPLACE VIEW through the vendor's client),
// builds with relation_changed_outside and both identities as evidence; unchanged, it is reused on
// its identity. The tables' identity (Snowflake's last_altered, BigQuery's
// partitions' last_modified_time) is refused on the emulators, whose metadata does not follow
// writes (fakesnow's times are 1970-01-01, bqemulator's bytes are 0 and its time moves only when a
// table is created): their tables are recorded without one and checked to exist only, which the
// evidence says ("not recorded").
#include <gtest/gtest.h>

#include <regex>

#include "warehouses/emulated_warehouse.h"

namespace ods::testing {
namespace {

const std::string kContentLimit = "ODS_CONTENT_MAX_BYTES=1000000000";
// The sources by content every run, whatever a fingerprint took on a loaded machine (the cost rule
// would otherwise switch a source to its metadata when its fingerprint took longer than its
// readers' builds, and its readers would build for the new kind of version).
const std::string kEvidenceCostOff = "ODS_EVIDENCE_COST=off";
const std::string kView = "order_feed_view";
const std::string kViewId = "model.warehouses." + kView;
const std::string kViewSql = "{{ config(materialized='view') }}\nselect id, amount from {{ ref('stg_orders') }}\n";
const std::string kOtherViewSql =
    "{{ config(materialized='view') }}\nselect id, amount * 3 as amount from {{ ref('stg_orders') }}\n";

std::string identity_value(const nlohmann::json& entry, const std::string& id) {
  const nlohmann::json* ev = evidence_about(entry, "relation_identity", id);
  return ev ? ev->at("value").get<std::string>() : "(no relation_identity evidence)";
}

bool reused(const nlohmann::json& entry) { return entry.value("action", "") == "reuse"; }

class IdentitySteps {
 public:
  explicit IdentitySteps(EmulatedWarehouse& wh) : wh_(wh) {}

  // `ods state run`; entries by node name. Whenever the table model stg_orders is reused, its
  // evidence says it was recorded without an identity (the emulator's metadata is refused).
  std::map<std::string, nlohmann::json> run() {
    auto entries = wh_.run({kContentLimit, kEvidenceCostOff});
    EXPECT_TRUE(entries.contains(kView) && entries.contains("stg_orders"));
    if (entries.contains("stg_orders") && reused(entries.at("stg_orders"))) {
      ++table_reuses_;
      EXPECT_EQ(identity_value(entries.at("stg_orders"), "model.warehouses.stg_orders"), "not recorded")
          << entries.at("stg_orders").dump(2);
    }
    return entries;
  }

  // The view, unchanged since ODS built it, is reused on the identity `recorded` (read in the
  // probe's relation check). `recorded` empty: whichever, returned.
  std::string expect_reused_view(const std::map<std::string, nlohmann::json>& entries, const std::string& recorded) {
    if (!entries.contains(kView)) return "";
    const nlohmann::json& view = entries.at(kView);
    EXPECT_TRUE(reused(view)) << view.dump(2);
    const std::string now = identity_value(view, kViewId);
    EXPECT_TRUE(std::regex_match(now, std::regex("definition=[0-9a-f]{32}"))) << view.dump(2);
    if (!recorded.empty()) {
      EXPECT_EQ(now, recorded) << view.dump(2);
    }
    return now;
  }

  // The view written outside ODS since `recorded`: it builds, both identities as evidence.
  void expect_changed_outside(const std::map<std::string, nlohmann::json>& entries, const std::string& recorded) {
    if (!entries.contains(kView)) return;
    const nlohmann::json& view = entries.at(kView);
    EXPECT_EQ(decision(view), "build:relation_changed_outside") << view.dump(2);
    const std::string both = identity_value(view, kViewId);
    EXPECT_EQ(both.rfind("recorded " + recorded + ", now definition=", 0), 0u) << both;
    EXPECT_EQ(both.find(recorded, recorded.size() + 9), std::string::npos) << "the same identity twice: " << both;
  }

  int table_reuses() const { return table_reuses_; }

 private:
  EmulatedWarehouse& wh_;
  int table_reuses_ = 0;
};

// `view_name`: the view model's relation, qualified for the vendor's client (scripts/warehouse.py).
void view_written_outside_builds(EmulatedWarehouse& wh, const std::string& view_name, const std::string& stg_orders) {
  IdentitySteps steps(wh);
  wh.write("models/" + kView + ".sql", kViewSql);
  auto entries = steps.run();
  if (entries.contains(kView)) {
    EXPECT_EQ(decision(entries.at(kView)), "build:never_built") << entries.at(kView).dump(2);
  }

  // Nothing changed: reused on its identity.
  const std::string recorded = steps.expect_reused_view(steps.run(), "");
  ASSERT_FALSE(recorded.empty());

  // `dbt run` with other code, then the code reverted: the code is the one ODS built, the view is
  // not. Run as from another checkout (its own target path: an outside dbt writing ODS's target/
  // replaces the parse ODS kept, which the next run refuses as changed while it ran).
  wh.write("models/" + kView + ".sql", kOtherViewSql);
  ProcessResult other = wh.dbt({"run", "-s", kView, "--target-path", "target-outside"});
  ASSERT_EQ(other.exit_code, 0) << other.output << other.errors;
  wh.write("models/" + kView + ".sql", kViewSql);
  steps.expect_changed_outside(steps.run(), recorded);

  // The build recorded the view's identity again: reused.
  steps.expect_reused_view(steps.run(), recorded);

  // Replaced by hand (CREATE OR REPLACE VIEW through the vendor's client) with other SQL.
  wh.sql({"create or replace view " + view_name + " as select id, amount + 1 as amount from " + stg_orders});
  steps.expect_changed_outside(steps.run(), recorded);
  EXPECT_GT(steps.table_reuses(), 0) << "stg_orders was never reused: its identity's refusal went unchecked";
}

TEST(SnowflakeEmulatorIdentity, AViewWrittenOutsideODSBuildsAndAnUnchangedOneIsReused) {
  EmulatedWarehouse wh;
  wh.start({"snowflake", {"ODS_SNOWFLAKE_CONTENT_HASH=bitxor_agg(hash(object_construct_keep_null(*)))"}});
  if (HasFatalFailure()) return;
  view_written_outside_builds(wh, "DB.ANALYTICS.ORDER_FEED_VIEW", "DB.ANALYTICS.STG_ORDERS");
  wh.stop();
}

TEST(BigQueryEmulatorIdentity, AViewWrittenOutsideODSBuildsAndAnUnchangedOneIsReused) {
  EmulatedWarehouse wh;
  wh.start({"bigquery", {}});
  if (HasFatalFailure()) return;
  view_written_outside_builds(wh, "analytics.order_feed_view", "analytics.stg_orders");
  wh.stop();
}

}  // namespace
}  // namespace ods::testing
