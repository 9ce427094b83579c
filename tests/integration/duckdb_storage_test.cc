// DuckDB sources read by their storage identity ($ODS_DUCKDB_STORAGE=on; docs/warehouses.md
// "DuckDB storage identity"): on examples/shop built and recorded by `ods state run`, a source
// whose storage did not move is reused on exact storage evidence, every write of it builds, and a
// write of another table leaves it reused.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "harness/dbt_project.h"
#include "harness/shop_baseline.h"  // ODS_ASSERT_OK

namespace ods::testing {
namespace {

constexpr const char* kCustomers = "source.shop.raw.customers";
// One customer's email changed in place (the row count stays).
constexpr const char* kUpdateOneCustomer =
    "update raw.customers set email = 'x' || email where customer_id = (select min(customer_id) from raw.customers)";

class DuckDbStorageEvidence : public ::testing::Test {
 protected:
  void SetUp() override {
    project_.emplace("shop");
    project_->add_env({"ODS_DUCKDB_STORAGE=on"});
    ODS_ASSERT_OK(project_->generate_data());
    run(false);
  }

  nlohmann::json run(bool dry_run) {
    std::vector<std::string> args{"state", "run", "--format", "json", "--profiles-dir", project_->dir().string()};
    if (dry_run) args.push_back("--dry-run");
    ProcessResult r = project_->ods(args);
    EXPECT_EQ(r.exit_code, 0) << r.output << r.errors;
    return output_json(r);
  }
  nlohmann::json plan() { return run(true).value("plan", nlohmann::json::object()); }

  // stg_customers' decision, and the origin of raw.customers' version behind it.
  std::pair<std::string, std::string> customers(const nlohmann::json& p) {
    const auto& stg = entry(p, "stg_customers");
    const nlohmann::json* version = evidence_about(stg, "source_data_version", kCustomers);
    return {decision(stg), version ? version->value("origin", "") + "/" + version->value("exactness", "") : ""};
  }

  std::optional<DbtProject> project_;
};

TEST_F(DuckDbStorageEvidence, NothingChangedIsReusedOnExactStorageEvidence) {
  const nlohmann::json p = plan();
  const auto [decided, origin] = customers(p);
  EXPECT_EQ(decided, "reuse:unchanged") << entry(p, "stg_customers").dump(2);
  EXPECT_EQ(origin, "duckdb_storage/exact");
}

TEST_F(DuckDbStorageEvidence, AWriteOfAnotherTableLeavesItReused) {
  ODS_ASSERT_OK(project_->sql(
      "update raw.orders set status = status || '' where order_id = (select min(order_id) from raw.orders); "
      "insert into raw.payments select * from raw.payments limit 3; checkpoint"));
  EXPECT_EQ(customers(plan()).first, "reuse:unchanged");
}

TEST_F(DuckDbStorageEvidence, AnUpdateInPlaceCheckpointedBuilds) {
  ODS_ASSERT_OK(project_->sql(std::string(kUpdateOneCustomer) + "; checkpoint"));
  const auto [decided, origin] = customers(plan());
  EXPECT_EQ(decided, "build:new_upstream_data");
  EXPECT_EQ(origin, "duckdb_storage/exact");
}

// Left in the write-ahead log: the probe's DuckDB replays it, the segments carry in-memory
// updates, so the table is read by content (and differs from the recorded storage identity).
TEST_F(DuckDbStorageEvidence, AnUpdateLeftInTheWriteAheadLogBuildsOnContent) {
  ODS_ASSERT_OK(project_->sql(std::string("pragma disable_checkpoint_on_shutdown; ") + kUpdateOneCustomer));
  ASSERT_TRUE(std::filesystem::exists(project_->dir() / (project_->duckdb_file() + ".wal")));
  const auto [decided, origin] = customers(plan());
  EXPECT_EQ(decided, "build:new_upstream_data");
  EXPECT_EQ(origin, "duckdb_content/exact");
}

// Two updates, each checkpointed: the second may land on the blocks the first freed, the ones the
// recorded identity names; the bytes differ, so it builds.
TEST_F(DuckDbStorageEvidence, TwoSuccessiveUpdatesBuild) {
  ODS_ASSERT_OK(project_->sql(std::string(kUpdateOneCustomer) + "; checkpoint"));
  ODS_ASSERT_OK(project_->sql(std::string(kUpdateOneCustomer) + "; checkpoint"));
  EXPECT_EQ(customers(plan()).first, "build:new_upstream_data");
}

TEST_F(DuckDbStorageEvidence, ADeletedRowBuildsOnContent) {
  ODS_ASSERT_OK(project_->sql(
      "delete from raw.customers where customer_id = (select max(customer_id) from raw.customers); checkpoint"));
  const auto [decided, origin] = customers(plan());
  EXPECT_EQ(decided, "build:new_upstream_data");
  EXPECT_EQ(origin, "duckdb_content/exact");
}

// The same rows written again are new storage: read as changed (content would have reused it).
TEST_F(DuckDbStorageEvidence, ATableReplacedWithTheSameRowsBuilds) {
  ODS_ASSERT_OK(project_->sql("create or replace table raw.customers as select * from raw.customers; checkpoint"));
  EXPECT_EQ(customers(plan()).first, "build:new_upstream_data");
}

}  // namespace
}  // namespace ods::testing
