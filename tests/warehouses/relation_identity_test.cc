// A reused relation is the one ODS recorded, on the Snowflake and BigQuery emulators (fakesnow,
// bqemulator) with the vendors' real dbt adapters (docs/warehouses.md, "Relation identity"): a
// view model of examples/warehouses redefined outside ODS (`dbt run` with other code, the code
// then reverted) builds with relation_changed_outside and both identities as evidence; unchanged,
// it is reused on its identity. The tables' identity (Snowflake's last_altered, BigQuery's
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
const std::string kView = "order_feed_view";
const std::string kViewId = "model.warehouses." + kView;
const std::string kViewSql = "{{ config(materialized='view') }}\nselect id, amount from {{ ref('stg_orders') }}\n";
const std::string kOtherViewSql =
    "{{ config(materialized='view') }}\nselect id, amount * 3 as amount from {{ ref('stg_orders') }}\n";

std::string identity_value(const nlohmann::json& entry, const std::string& id) {
  const nlohmann::json* ev = evidence_about(entry, "relation_identity", id);
  return ev ? ev->at("value").get<std::string>() : "(no relation_identity evidence)";
}

void view_redefined_outside_builds(EmulatedWarehouse& wh, const std::string& definition_pattern) {
  wh.write("models/" + kView + ".sql", kViewSql);
  auto entries = wh.run({kContentLimit});
  ASSERT_TRUE(entries.contains(kView) && entries.contains("stg_orders"));
  EXPECT_EQ(decision(entries.at(kView)), "build:never_built") << entries.at(kView).dump(2);

  // Nothing changed: the view is reused on its identity, read in the probe's relation check; the
  // table model beside it was recorded without one (the emulator's metadata is refused).
  entries = wh.run({kContentLimit});
  ASSERT_TRUE(entries.contains(kView) && entries.contains("stg_orders"));
  EXPECT_EQ(decision(entries.at("stg_orders")), "reuse:unchanged") << entries.at("stg_orders").dump(2);
  ASSERT_EQ(decision(entries.at(kView)), "reuse:unchanged") << entries.at(kView).dump(2);
  const std::string recorded = identity_value(entries.at(kView), kViewId);
  EXPECT_TRUE(std::regex_match(recorded, std::regex(definition_pattern))) << entries.at(kView).dump(2);
  EXPECT_EQ(identity_value(entries.at("stg_orders"), "model.warehouses.stg_orders"), "not recorded")
      << entries.at("stg_orders").dump(2);

  // `dbt run` with other code, then the code reverted: the code is the one ODS built, the view is
  // not. Run as from another checkout (its own target path: an outside dbt writing ODS's target/
  // replaces the parse ODS kept, which the next run refuses as changed while it ran).
  wh.write("models/" + kView + ".sql", kOtherViewSql);
  ProcessResult other = wh.dbt({"run", "-s", kView, "--target-path", "target-outside"});
  ASSERT_EQ(other.exit_code, 0) << other.output << other.errors;
  wh.write("models/" + kView + ".sql", kViewSql);
  entries = wh.run({kContentLimit});
  ASSERT_TRUE(entries.contains(kView) && entries.contains("stg_orders"));
  EXPECT_EQ(decision(entries.at(kView)), "build:relation_changed_outside") << entries.at(kView).dump(2);
  const std::string both = identity_value(entries.at(kView), kViewId);
  EXPECT_EQ(both.rfind("recorded " + recorded + ", now definition=", 0), 0u) << both;
  EXPECT_EQ(both.find(recorded, recorded.size() + 9), std::string::npos) << "the same identity twice: " << both;
  EXPECT_EQ(decision(entries.at("stg_orders")), "reuse:unchanged") << entries.at("stg_orders").dump(2);

  // The build recorded the view's identity again: reused.
  entries = wh.run({kContentLimit});
  ASSERT_TRUE(entries.contains(kView));
  EXPECT_EQ(decision(entries.at(kView)), "reuse:unchanged") << entries.at(kView).dump(2);
  EXPECT_EQ(identity_value(entries.at(kView), kViewId), recorded) << entries.at(kView).dump(2);
}

TEST(SnowflakeEmulatorIdentity, AViewRedefinedOutsideODSBuildsAndAnUnchangedOneIsReused) {
  EmulatedWarehouse wh;
  wh.start({"snowflake", {"ODS_SNOWFLAKE_CONTENT_HASH=bitxor_agg(hash(object_construct_keep_null(*)))"}});
  if (HasFatalFailure()) return;
  view_redefined_outside_builds(wh, "definition=[0-9a-f]{32}");
  wh.stop();
}

TEST(BigQueryEmulatorIdentity, AViewRedefinedOutsideODSBuildsAndAnUnchangedOneIsReused) {
  EmulatedWarehouse wh;
  wh.start({"bigquery", {}});
  if (HasFatalFailure()) return;
  view_redefined_outside_builds(wh, "definition=[0-9a-f]{32}");
  wh.stop();
}

}  // namespace
}  // namespace ods::testing
