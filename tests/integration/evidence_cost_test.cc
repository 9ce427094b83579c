// Evidence bounded by cost (issue 38 items 2 and 3; docs/warehouses.md "Evidence bounded by
// cost"): on real DuckDB and dbt, once the ledger says a source's content fingerprint, or a built
// model's content measurement, took longer than building everything downstream of it, the next
// run leaves it unread and its plan, `explain` and the run's plan say why; ODS_EVIDENCE_COST=off
// reads it again. The recorded seconds are written into the ledger (the shop's tables are tiny,
// so no real fingerprint costs more than a build here).
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "harness/postgres_shop.h"
#include "harness/shop_baseline.h"

namespace ods::testing {
namespace {

constexpr const char* kCustomers = "source.shop.raw.customers";
constexpr const char* kStgCustomers = "model.shop.stg_customers";

// Every recorded exact evidence seconds of `ids` in `project`'s ledger set to `seconds` (python's
// sqlite3, from the venv), as if their fingerprints had taken that long.
void set_evidence_seconds(const DbtProject& project, const std::vector<std::string>& ids, double seconds) {
  std::string list;
  for (const auto& id : ids) list += (list.empty() ? "" : ",") + std::string("'") + id + "'";
  const std::string script = "import json,sqlite3,sys\ndb=sqlite3.connect(sys.argv[1])\nids=[" + list +
                             "]\nfor seq,details in db.execute('select seq, details from runs').fetchall():\n"
                             "  d=json.loads(details)\n  s=d.get('exact_evidence_seconds')\n  if not s: continue\n"
                             "  for i in ids:\n    if i in s: s[i]=float(sys.argv[2])\n"
                             "  db.execute('update runs set details=? where seq=?', (json.dumps(d), seq))\n"
                             "db.commit()\ndb.execute('pragma wal_checkpoint(truncate)')\n";
  ProcessResult r = run_process({(venv_bin() / "python").string(), "-c", script,
                                 (project.dir() / ".ods" / "state.db").string(), std::to_string(seconds)},
                                project.dir());
  ASSERT_EQ(r.exit_code, 0) << r.output << r.errors;
}

class DuckDbEvidenceCost : public ::testing::Test {
 protected:
  void SetUp() override {
    project_.emplace("shop");
    ODS_ASSERT_OK(project_->generate_data());
    const ProcessResult first = run({});
    ASSERT_EQ(first.exit_code, 0) << first.output << first.errors;
  }

  ProcessResult run(std::vector<std::string> extra, const DbtProject* on = nullptr) {
    const DbtProject& project = on ? *on : *project_;
    std::vector<std::string> args{"state", "run", "--format", "json", "--profiles-dir", project.dir().string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return project.ods(args);
  }
  nlohmann::json plan(const DbtProject* on = nullptr) {
    const ProcessResult r = run({"--dry-run"}, on);
    EXPECT_EQ(r.exit_code, 0) << r.output << r.errors;
    return output_json(r).value("plan", nlohmann::json::object());
  }

  void record_evidence_seconds(const std::vector<std::string>& ids, double seconds) {
    set_evidence_seconds(*project_, ids, seconds);
  }

  std::optional<DbtProject> project_;
};

TEST_F(DuckDbEvidenceCost, TheFirstRunRecordsWhatEachExactEvidenceCost) {
  const nlohmann::json same = plan();
  EXPECT_EQ(decision(entry(same, "stg_customers")), "reuse:unchanged") << "unknown seconds: as before the rule";
  const ProcessResult history = project_->ods({"state", "history", "--format", "json", "--limit", "1"});
  ASSERT_EQ(history.exit_code, 0) << history.errors;
  EXPECT_NE(history.output.find("exact_evidence_seconds"), std::string::npos) << history.output;
  EXPECT_NE(history.output.find(kCustomers), std::string::npos) << history.output;
}

// DuckDB has no cheaper evidence of raw.customers (no loaded_at_field): building what reads it
// is cheaper than its fingerprint, so its readers build, saying why.
TEST_F(DuckDbEvidenceCost, AFingerprintThatCostsMoreThanItsReadersBuildsThem) {
  record_evidence_seconds({kCustomers, kStgCustomers}, 1000);
  const DbtProject off = DbtProject::copy_of(*project_);  // before this test's run changes the state
  const nlohmann::json planned = plan();
  const auto& stg = entry(planned, "stg_customers");
  EXPECT_EQ(decision(stg), "build:evidence_costs_more") << stg.dump(2);
  EXPECT_NE(first_reason_message(stg).find("raw.customers was not fingerprinted"), std::string::npos)
      << first_reason_message(stg);
  EXPECT_NE(first_reason_message(stg).find("1000.00 s"), std::string::npos) << first_reason_message(stg);
  EXPECT_NE(evidence_about(stg, "exact_evidence_too_costly", kCustomers), nullptr) << stg.dump(2);
  EXPECT_EQ(decision(entry(planned, "stg_orders")), "reuse:unchanged") << "raw.orders' fingerprint is cheap";

  const ProcessResult explained =
      project_->ods({"state", "explain", "stg_customers", "--profiles-dir", project_->dir().string()});
  ASSERT_EQ(explained.exit_code, 0) << explained.errors;
  EXPECT_NE(explained.output.find("evidence_costs_more"), std::string::npos) << explained.output;

  // The run builds them, and leaves stg_customers' own content unmeasured: measuring it "took"
  // 1000 s, more than building what lies below it.
  const ProcessResult ran = run({});
  ASSERT_EQ(ran.exit_code, 0) << ran.output << ran.errors;
  EXPECT_NE(ran.errors.find("is not fingerprinted"), std::string::npos) << ran.errors;
  EXPECT_NE(ran.errors.find("is not measured"), std::string::npos) << ran.errors;
  const nlohmann::json ran_plan = output_json(ran).value("plan", nlohmann::json::object());
  const auto& built = entry(ran_plan, "stg_customers");
  EXPECT_EQ(decision(built), "build:evidence_costs_more");
  EXPECT_NE(evidence_about(built, "content_unmeasured", kStgCustomers), nullptr) << built.dump(2);

  // ODS_EVIDENCE_COST=off reads every fingerprint again (on the state as it was before that run).
  DbtProject reading = DbtProject::copy_of(off);
  reading.add_env({"ODS_EVIDENCE_COST=off"});
  EXPECT_EQ(decision(entry(plan(&reading), "stg_customers")), "reuse:unchanged");
}

TEST_F(DuckDbEvidenceCost, ABadSettingIsRefused) {
  DbtProject bad = DbtProject::copy_of(*project_);
  bad.add_env({"ODS_EVIDENCE_COST=maybe"});
  const ProcessResult r = run({"--dry-run"}, &bad);
  EXPECT_EQ(r.exit_code, 2) << r.output << r.errors;
  EXPECT_NE(r.errors.find("ODS_EVIDENCE_COST"), std::string::npos) << r.errors;
}

// PostgreSQL has cheaper evidence: the catalog and statistics decide instead of the fingerprint.
// The first run after the switch builds the readers once (the recorded version was the content);
// the next reuses them on the statistics, saying why.
constexpr const char* kLoaded = "shop_cost_loaded";  // the raw tables only, the template of each case

class PostgresEvidenceCost : public PostgresShopFixture {
 protected:
  PostgresEvidenceCost() : PostgresShopFixture(kLoaded, {"ODS_CONTENT_MAX_BYTES=unlimited"}) {}

  static void SetUpTestSuite() { load_shop_raw_tables(kLoaded); }

  nlohmann::json run(bool dry_run) {
    return run_plan(dry_run ? std::vector<std::string>{"--dry-run"} : std::vector<std::string>{});
  }
};

TEST_F(PostgresEvidenceCost, AFingerprintThatCostsMoreThanItsReadersGivesWayToTheStatistics) {
  run(false);
  set_evidence_seconds(*project_, {kCustomers}, 1000);
  const nlohmann::json switched = run(false);
  const auto& stg = entry(switched, "stg_customers");
  EXPECT_EQ(decision(stg), "build:new_upstream_data") << "the recorded version was the content: " << stg.dump(2);
  const nlohmann::json* version = evidence_about(stg, "source_data_version", kCustomers);
  ASSERT_NE(version, nullptr) << stg.dump(2);
  EXPECT_EQ(version->value("origin", ""), "postgres_statistics") << stg.dump(2);
  EXPECT_NE(evidence_about(stg, "exact_evidence_too_costly", kCustomers), nullptr) << stg.dump(2);
  EXPECT_EQ(all_evidence_of(stg, "source_content_unread"), "") << "the empty answer's complaint is replaced";
  EXPECT_EQ(decision(entry(switched, "stg_orders")), "reuse:unchanged") << "raw.orders' fingerprint is cheap";

  const nlohmann::json next = run(true);
  const auto& reused = entry(next, "stg_customers");
  EXPECT_EQ(decision(reused), "reuse:unchanged") << reused.dump(2);
  const auto codes = reason_codes(reused);
  EXPECT_NE(std::find(codes.begin(), codes.end(), "cheaper_evidence"), codes.end()) << reused.dump(2);
}

}  // namespace
}  // namespace ods::testing
