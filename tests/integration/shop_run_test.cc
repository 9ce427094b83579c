// `ods state run` on examples/shop, on DuckDB and on PostgreSQL (one suite, parameterised by
// harness/warehouse.h): each scenario is a change followed by a run, with assertions on every
// affected node's action and reason code.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <thread>

#include "harness/background_process.h"
#include "harness/eventually.h"
#include "harness/relation_contents.h"
#include "harness/shop_baseline.h"
#include "harness/warehouse.h"

namespace ods::testing {
namespace {

namespace fs = std::filesystem;

bool has_evidence(const nlohmann::json& e, const std::string& kind, const std::string& key, const std::string& value) {
  for (const auto& ev : e.at("evidence"))
    if (ev.at("kind") == kind && ev.at(key) == value) return true;
  return false;
}

// `ods state run --format json` on `p` in `w`'s target; returns {exit code, document}.
std::pair<int, nlohmann::json> run(const DbtProject& p, const Warehouse& w, std::vector<std::string> extra = {},
                                   std::string* errors = nullptr) {
  std::vector<std::string> args{"state", "run", "--format", "json", "--profiles-dir", p.dir().string()};
  auto target = w.target_args();
  args.insert(args.end(), target.begin(), target.end());
  args.insert(args.end(), extra.begin(), extra.end());
  ProcessResult r = p.ods(args);
  if (errors) *errors = r.errors;
  auto doc = nlohmann::json::parse(r.output, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << "stdout:\n" << r.output << "\nstderr:\n" << r.errors;
  return {r.exit_code, doc};
}

// Loads the data, runs twice (the second run is the incremental model's steady state) and
// keeps the warehouse's data as every scenario's starting point.
std::unique_ptr<DbtProject> make_run_baseline(Warehouse& w) {
  auto p = std::make_unique<DbtProject>("shop");
  w.connect(*p);
  ProcessResult loaded = w.generate_data(*p);
  EXPECT_EQ(loaded.exit_code, 0) << loaded.output << loaded.errors;
  auto [first_code, first] = run(*p, w);
  EXPECT_EQ(first_code, 0) << first.dump(2);
  for (const auto& e : first.at("plan").at("entries")) EXPECT_EQ(decision(e), "build:never_built") << e.dump();
  auto [second_code, second] = run(*p, w);
  EXPECT_EQ(second_code, 0) << second.dump(2);
  w.save_baseline();
  return p;
}

// The warehouse's baseline, made on first use; null when making it failed (then every
// scenario of that warehouse fails instead of running on a broken baseline).
const DbtProject* run_baseline(Warehouse& w) {
  static std::map<std::string, std::unique_ptr<DbtProject>> baselines;
  auto [it, first_use] = baselines.try_emplace(w.name());
  if (first_use) {
    auto made = make_run_baseline(w);
    if (!::testing::Test::HasFailure()) it->second = std::move(made);
  }
  return it->second.get();
}

std::vector<nlohmann::json> snapshots(const DbtProject& p, const Warehouse& w) {
  std::vector<std::string> args{"state", "history", "--format", "json", "--limit", "0"};
  auto target = w.target_args();
  args.insert(args.end(), target.begin(), target.end());
  auto r = p.ods(args);
  EXPECT_EQ(r.exit_code, 0) << r.errors;
  return nlohmann::json::parse(r.output).at("snapshots");
}

// A parameter names its warehouse without creating it (the PostgreSQL server starts only when
// a test of that warehouse runs).
struct WarehouseParam {
  const char* name;
  Warehouse& (*get)();
};

void PrintTo(const WarehouseParam& p, std::ostream* os) { *os << p.name; }

class ShopRun : public ::testing::TestWithParam<WarehouseParam> {
 protected:
  void SetUp() override {
    warehouse_ = &GetParam().get();
    ASSERT_TRUE(warehouse_->unavailable().empty()) << warehouse_->unavailable();
    const DbtProject* baseline = run_baseline(*warehouse_);
    ASSERT_NE(baseline, nullptr) << "the baseline runs on " << warehouse_->name() << " failed";
    warehouse_->begin_scenario();
    project_.emplace(DbtProject::copy_of(*baseline));
  }
  void TearDown() override {
    project_.reset();
    if (warehouse_ && warehouse_->unavailable().empty()) warehouse_->end_scenario();
  }

  std::pair<int, nlohmann::json> run_ods(std::vector<std::string> extra = {}, std::string* errors = nullptr) {
    return run(*project_, *warehouse_, std::move(extra), errors);
  }

  Warehouse* warehouse_ = nullptr;
  std::optional<DbtProject> project_;
};

TEST_P(ShopRun, NothingChangedReusesAllButTheAlwaysBuiltNode) {
  auto [code, doc] = run_ods();
  ASSERT_EQ(code, 0) << doc.dump(2);
  for (const auto& e : doc.at("plan").at("entries")) {
    if (e.at("name") == "dim_customers") {
      EXPECT_EQ(decision(e), "build:reads_run_context");
    } else {
      EXPECT_EQ(decision(e), "reuse:unchanged") << e.dump(2);
      bool checked = false;
      for (const auto& ev : e.at("evidence"))
        checked |= ev.at("kind") == "relation_exists" && ev.at("value") == "true" && ev.at("exactness") == "exact";
      EXPECT_TRUE(checked) << "a reuse in a run checks that the relation exists: " << e.dump();
    }
  }
  EXPECT_EQ(doc.at("run").at("counts").at("built"), 1);
}

TEST_P(ShopRun, WhenEverythingSelectedIsReusedDbtBuildIsNotStarted) {
  std::string errors;
  auto [code, doc] = run_ods({"--select", "stg_orders+1"}, &errors);
  ASSERT_EQ(code, 0) << errors;
  EXPECT_EQ(doc.at("run").at("outcome"), "reused");
  EXPECT_NE(errors.find("dbt build not started"), std::string::npos) << errors;
  EXPECT_EQ(doc.at("plan").at("summary").at("build"), 0);
}

TEST_P(ShopRun, RowsInsertedIntoASourceBuildItsReaders) {
  ODS_ASSERT_OK(warehouse_->generate_data(*project_, {"--append-orders", "5"}));
  auto [code, doc] = run_ods();
  ASSERT_EQ(code, 0) << doc.dump(2);
  const auto& plan = doc.at("plan");
  EXPECT_EQ(decision(entry(plan, "stg_orders")), "build:new_upstream_data");
  EXPECT_EQ(decision(entry(plan, "stg_payments")), "build:new_upstream_data");  // payments appended too
  EXPECT_EQ(decision(entry(plan, "orders_daily")), "build:new_upstream_data");
  EXPECT_EQ(decision(entry(plan, "stg_customers")), "reuse:unchanged");
  EXPECT_EQ(decision(entry(plan, "customers_snapshot")), "reuse:unchanged");
  EXPECT_EQ(decision(entry(plan, "country_codes")), "reuse:unchanged");
}

// The ledger entry of a run that built names the snapshot it committed. Until issue 40 moved the
// wave's record into run/ (run::commit_wave), `ods state run` read the committed snapshot's id
// after handing it to the next wave's head, and kept "" (the controller's entries named it).
TEST_P(ShopRun, TheLedgerEntryOfARunThatBuiltNamesTheSnapshotItCommitted) {
  ODS_ASSERT_OK(warehouse_->generate_data(*project_, {"--append-orders", "5"}));
  auto [code, doc] = run_ods();
  ASSERT_EQ(code, 0) << doc.dump(2);
  const std::string run_id = doc.at("run").at("run_id");
  auto ids = run_process({(venv_bin() / "python").string(), "-c",
                          "import sqlite3,sys\nc=sqlite3.connect(sys.argv[1])\n"
                          "r=c.execute('select r.snapshot_id, s.id from runs r join snapshots s on s.run_id = r.run_id"
                          " where r.run_id = ?', (sys.argv[2],)).fetchone()\nprint(r[0], r[1])",
                          (project_->dir() / ".ods" / "state.db").string(), run_id},
                         project_->dir());
  ODS_ASSERT_OK(ids);
  std::istringstream words(ids.output);
  std::string entry_names, committed;
  words >> entry_names >> committed;
  EXPECT_FALSE(committed.empty()) << ids.output;
  EXPECT_EQ(entry_names, committed) << "the ledger entry of run " << run_id << " names another snapshot";
}

// Issue #13: the record step records the project that was planned. In the ods dbt driver
// (the real dbt) every dbt command runs on compile's parse: no second read of the manifest.
TEST_P(ShopRun, InTheDbtDriverTheRecordIsOfThePlannedProject) {
  ODS_ASSERT_OK(warehouse_->generate_data(*project_, {"--append-orders", "5"}));
  std::string errors;
  auto [code, doc] = run_ods({}, &errors);
  ASSERT_EQ(code, 0) << errors;
  EXPECT_EQ(decision(entry(doc.at("plan"), "stg_orders")), "build:new_upstream_data");
  EXPECT_EQ(doc.at("run").at("recorded_from"), "plan") << errors;
}

// Rule 2 without the driver (a wrapper script: a dbt process per command, each parsing the
// project itself): stg_orders.sql is edited just before dbt build starts and put back after
// it. dbt built the edited code, so that is what is recorded; the next run, on the file as
// planned, builds stg_orders again instead of reusing a relation built from other code.
TEST_P(ShopRun, WithoutTheDriverAModelEditedWhileDbtBuildsIsRecordedAsDbtBuiltIt) {
  ODS_ASSERT_OK(warehouse_->generate_data(*project_, {"--append-orders", "5"}));
  const std::string model = (project_->dir() / "models" / "staging" / "stg_orders.sql").string();
  const std::string dbt = write_dbt_wrapper(*project_, "dbt-edits-during-build.sh", "build",
                                            "sed -i 's/lower(status)/lower(trim(status))/' '" + model + "'",
                                            "sed -i 's/lower(trim(status))/lower(status)/' '" + model + "'");
  std::string errors;
  auto [code, doc] = run_ods({"--dbt", dbt}, &errors);
  ASSERT_EQ(code, 0) << errors;
  EXPECT_EQ(decision(entry(doc.at("plan"), "stg_orders")), "build:new_upstream_data");
  EXPECT_EQ(doc.at("run").at("recorded_from"), "manifest");
  ASSERT_NE(project_->read("models/staging/stg_orders.sql").find("lower(status)"), std::string::npos);
  auto [next_code, next] = run_ods();
  ASSERT_EQ(next_code, 0) << next.dump(2);
  EXPECT_EQ(decision(entry(next.at("plan"), "stg_orders")), "build:fingerprint_changed");
  EXPECT_EQ(decision(entry(next.at("plan"), "stg_customers")), "reuse:unchanged");
}

TEST_P(ShopRun, ExcludeLeavesNodesOutOfThePlanTheBuildAndTheRecord) {
  ODS_ASSERT_OK(warehouse_->generate_data(*project_, {"--append-orders", "5"}));
  const std::size_t recorded_before = snapshots(*project_, *warehouse_).size();
  std::vector<std::string> bad{"state",     "run",           "--profiles-dir", project_->dir().string(),
                               "--exclude", "state:modified"};
  for (const auto& arg : warehouse_->target_args()) bad.push_back(arg);
  ProcessResult refused = project_->ods(bad);
  EXPECT_EQ(refused.exit_code, 2) << refused.errors;
  EXPECT_NE(refused.errors.find("--exclude: selector 'state:modified' is not for ODS: ODS decides what changed"),
            std::string::npos)
      << refused.errors;
  EXPECT_EQ(snapshots(*project_, *warehouse_).size(), recorded_before) << "a refused selection recorded something";

  auto [code, doc] = run_ods({"--exclude", "path:models/marts", "--exclude", "stg_payments"});
  ASSERT_EQ(code, 0) << doc.dump(2);
  for (const auto& e : doc.at("plan").at("entries")) {
    const std::string name = e.at("name");
    EXPECT_TRUE(name != "fct_orders" && name != "orders_daily" && name != "dim_customers" && name != "stg_payments")
        << name << " was excluded but planned";
  }
  EXPECT_EQ(decision(entry(doc.at("plan"), "stg_orders")), "build:new_upstream_data");
  EXPECT_EQ(decision(entry(doc.at("plan"), "stg_customers")), "reuse:unchanged");
  // Excluded nodes were neither built nor recorded: the next full run builds them.
  auto [next_code, next] = run_ods();
  ASSERT_EQ(next_code, 0) << next.dump(2);
  EXPECT_EQ(decision(entry(next.at("plan"), "orders_daily")), "build:new_upstream_data");
  EXPECT_EQ(decision(entry(next.at("plan"), "stg_payments")), "build:new_upstream_data");
  EXPECT_EQ(decision(entry(next.at("plan"), "stg_orders")), "reuse:unchanged");
}

TEST_P(ShopRun, ARowUpdatedWithoutLoadedAtIsDetectedByContent) {
  ODS_ASSERT_OK(warehouse_->generate_data(*project_, {"--update-customers", "1"}));
  auto [code, doc] = run_ods();
  ASSERT_EQ(code, 0) << doc.dump(2);
  const auto& plan = doc.at("plan");
  EXPECT_EQ(decision(entry(plan, "stg_customers")), "build:new_upstream_data");
  EXPECT_EQ(decision(entry(plan, "customers_snapshot")), "build:new_upstream_data");
  EXPECT_EQ(decision(entry(plan, "stg_orders")), "reuse:unchanged");
  auto message = entry(plan, "stg_customers").at("reasons").at(0).at("message").get<std::string>();
  EXPECT_NE(message.find("raw.customers"), std::string::npos) << message;
}

TEST_P(ShopRun, ASourceRecreatedWithTheSameRowsIsJudgedByItsContent) {
  ODS_ASSERT_OK(warehouse_->sql(*project_, warehouse_->recreate_customers_sql()));
  auto [code, doc] = run_ods();
  ASSERT_EQ(code, 0) << doc.dump(2);
  // Same rows: the content version is equal, so reusing the snapshot that reads the table is
  // correct, and its evidence says which content version was seen.
  const auto& plan = doc.at("plan");
  const auto& snapshot = entry(plan, "customers_snapshot");
  EXPECT_EQ(decision(snapshot), "reuse:unchanged");
  EXPECT_TRUE(has_evidence(snapshot, "source_data_version", "origin", warehouse_->content_origin()))
      << snapshot.dump(2);
  EXPECT_TRUE(has_evidence(snapshot, "source_data_version", "exactness", "exact")) << snapshot.dump(2);
  // The staging view on the table: DuckDB keeps it (it resolves the name when queried), so it
  // is reused on the same content; PostgreSQL's DROP TABLE ... CASCADE dropped it with the
  // table, so it is built because its relation is gone.
  const auto& view = entry(plan, "stg_customers");
  if (warehouse_->name() == "Postgres") {
    EXPECT_EQ(decision(view), "build:relation_missing") << view.dump(2);
  } else {
    EXPECT_EQ(decision(view), "reuse:unchanged") << view.dump(2);
    EXPECT_TRUE(has_evidence(view, "source_data_version", "origin", warehouse_->content_origin())) << view.dump(2);
  }
  EXPECT_EQ(doc.at("run").at("outcome"), "success") << doc.at("run").dump(2);
}

TEST_P(ShopRun, AModelRelationDroppedOutsideDbtIsBuilt) {
  ODS_ASSERT_OK(warehouse_->sql(*project_, "drop view main.stg_orders"));
  auto [code, doc] = run_ods();
  ASSERT_EQ(code, 0) << doc.dump(2);
  EXPECT_EQ(decision(entry(doc.at("plan"), "stg_orders")), "build:relation_missing");
  EXPECT_EQ(decision(entry(doc.at("plan"), "country_codes")), "reuse:unchanged");
}

TEST_P(ShopRun, AnUnreachableWarehouseMakesEverySourceUnknownAndWarnsWithDbtsError) {
  // Only the probe (dbt show) finds the warehouse unreachable; compile and build reach it. The
  // probe goes through dbt show (on PostgreSQL the native probe, which reaches it from the ods
  // process, is off; its own failure: NativeProbe.AFailedNativeProbeIsFollowedByDbtShowWithAWarning).
  project_->add_env({"ODS_NATIVE_PROBE=off"});
  std::string dbt =
      write_dbt_wrapper(*project_, "dbt-unreachable.sh", "show", "export " + warehouse_->unreachable_env());
  std::string errors;
  auto [code, doc] = run_ods({"--dbt", dbt}, &errors);
  ASSERT_EQ(code, 0) << errors;
  const auto& plan = doc.at("plan");
  EXPECT_EQ(decision(entry(plan, "stg_orders")), "build:missing_data_evidence");
  EXPECT_EQ(decision(entry(plan, "stg_customers")), "build:missing_data_evidence");
  EXPECT_EQ(decision(entry(plan, "customers_snapshot")), "build:missing_data_evidence");
  EXPECT_EQ(decision(entry(plan, "country_codes")), "build:relation_unverified");
  bool quoted = false;
  for (const auto& w : plan.at("warnings"))
    quoted |= w.get<std::string>().find(warehouse_->unreachable_error()) != std::string::npos;
  EXPECT_TRUE(quoted) << "no warning quotes dbt's error (" << warehouse_->unreachable_error()
                      << "): " << plan.at("warnings");
  EXPECT_EQ(plan.at("summary").at("reuse"), 0);
  // The build is recorded without source versions (none was measured): the next run, with
  // the warehouse back, cannot reuse the sources' readers on evidence that was never
  // recorded, and builds them again; nodes without sources are reused.
  auto [again_code, again] = run_ods();
  ASSERT_EQ(again_code, 0) << again.dump(2);
  const auto& reader = entry(again.at("plan"), "stg_orders");
  EXPECT_EQ(decision(reader), "build:missing_data_evidence") << reader.dump(2);
  EXPECT_EQ(decision(entry(again.at("plan"), "country_codes")), "reuse:unchanged");
}

TEST_P(ShopRun, AFailingModelKeepsItsStateAndIsRebuiltNextRun) {
  project_->replace_in("models/marts/fct_orders.sql", "o.loaded_at\n", "o.loaded_at, no_such_column\n");
  auto [code, doc] = run_ods();
  EXPECT_NE(code, 0) << doc.dump(2);
  EXPECT_GE(doc.at("run").at("counts").at("failed").get<int>(), 1);
  auto [again_code, again] = run_ods();
  EXPECT_NE(again_code, 0);
  EXPECT_EQ(decision(entry(again.at("plan"), "fct_orders")), "build:fingerprint_changed");
  EXPECT_EQ(entry(again.at("plan"), "dim_customers").at("action"), "build");  // blocked by fct_orders
  if (warehouse_->runs_python_models()) {
    EXPECT_EQ(decision(entry(again.at("plan"), "order_status_summary")), "build:upstream_code_changed");
  }
  EXPECT_EQ(decision(entry(again.at("plan"), "stg_orders")), "reuse:unchanged");
}

// Starts `ods state run <extra>` on `p`, sends it SIGINT once it printed that dbt build starts,
// and returns its exit code (-1 when it did not exit normally); fails the test when ods
// never reached the build.
int interrupt_ods_while_building(const DbtProject& p, const Warehouse& w, const std::vector<std::string>& extra) {
  fs::path log = p.dir() / "ods.log";
  const std::string dir = p.dir().string();
  std::vector<std::string> argv{ods_binary().string(), "state", "run", "--project-dir", dir, "--profiles-dir", dir};
  for (const auto& a : extra) argv.push_back(a);
  for (const auto& a : w.target_args()) argv.push_back(a);
  fs::remove(log);
  BackgroundProcess ods;
  if (auto started = ods.start(argv, p.dir(), log, p.env()); !started) {
    ADD_FAILURE() << started.error();
    return -1;
  }
  std::string text;
  const bool building = eventually(
      std::chrono::minutes(2),
      [&] {
        std::ifstream in(log);
        text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
        return text.find("ods: building") != std::string::npos || ods.exited();
      },
      std::chrono::milliseconds(200));
  EXPECT_TRUE(building && !ods.exited()) << "ods never reached dbt build:\n" << text;
  if (!ods.exited()) ::kill(ods.pid(), SIGINT);
  EXPECT_TRUE(eventually(
      std::chrono::minutes(2), [&] { return ods.exited(); }, std::chrono::milliseconds(100)))
      << "ods did not end within 2 minutes of SIGINT:\n"
      << ods.log_tail();
  ods.stop();
  return ods.exit_code().value_or(-1);
}

TEST_P(ShopRun, SigintDuringTheBuildRecordsNothing) {
  // A dbt whose build waits, so the interruption lands while dbt build runs. (A wrapper
  // script: dbt runs as one process per command.)
  std::string dbt = write_dbt_wrapper(*project_, "slow-dbt.sh", "build", "echo building >&2; sleep 60");
  project_->replace_in("models/staging/stg_orders.sql", "lower(status)", "upper(status)");
  const auto before = snapshots(*project_, *warehouse_);
  EXPECT_EQ(interrupt_ods_while_building(*project_, *warehouse_, {"--dbt", dbt}), 130);
  EXPECT_EQ(snapshots(*project_, *warehouse_), before) << "an interrupted run records nothing";
}

TEST_P(ShopRun, SigintDuringTheBuildInTheDbtDriverRecordsNothing) {
  // The real dbt, so all commands run in the ods dbt driver; a new model whose query runs
  // for minutes keeps dbt build busy when the interruption lands.
  project_->write("models/marts/slow_model.sql",
                  "{% if target.type == 'duckdb' %}select count(*) as n from range(1000000000000)\n"
                  "{% else %}select pg_sleep(600) is null as n\n{% endif %}");
  const auto before = snapshots(*project_, *warehouse_);
  const std::string dbt = (venv_bin() / "dbt").string();
  EXPECT_EQ(interrupt_ods_while_building(*project_, *warehouse_, {"--dbt", dbt}), 130);
  EXPECT_EQ(snapshots(*project_, *warehouse_), before) << "an interrupted run records nothing";
  // The next run finds the state as it was: the new model was never built.
  project_->write("models/marts/slow_model.sql", "select 1 as n\n");
  auto [code, doc] = run_ods();
  ASSERT_EQ(code, 0) << doc.at("run").dump(2);
  EXPECT_EQ(decision(entry(doc.at("plan"), "stg_orders")), "reuse:unchanged");
  EXPECT_EQ(decision(entry(doc.at("plan"), "slow_model")), "build:never_built");
}

// Early cutoff (docs/early-cutoff.md): a source change that leaves stg_orders' output as it was
// (the case of `status`, which it lower-cases) and one that alters it; after each, every
// relation holds what a full build gives.
// The relations compared with a full build: every model and the seed (the snapshot's rows
// carry the time they were taken; order_status_summary runs only where Python models do).
const char* const kRelations[] = {"country_codes", "stg_customers", "stg_orders",  "stg_payments",
                                  "fct_orders",    "dim_customers", "orders_daily"};

// What the relations hold after the run, and after a full build from scratch on the same data
// (dbt build --full-refresh: every table and view replaced, the incremental model rebuilt).
void expect_same_as_full_build(const DbtProject& p, const Warehouse& w) {
  const std::vector<std::string> relations(std::begin(kRelations), std::end(kRelations));
  const auto after_run = relation_contents(p, w, relations);
  ASSERT_TRUE(full_build(p, w));
  EXPECT_EQ(after_run, relation_contents(p, w, relations)) << "the relations differ from a full build's";
}

std::map<std::string, nlohmann::json> cutoff_entries_by_name(const nlohmann::json& doc) {
  std::map<std::string, nlohmann::json> out;
  for (const auto& e : doc.at("plan").at("entries")) out[e.at("name").get<std::string>()] = e;
  return out;
}

// Two steps on one copy (each compared with a full build): a change stg_orders normalises
// away, then new orders, which alter its output.
TEST_P(ShopRun, EarlyCutoffSparesReadersOnlyWhileTheStagingOutputIsUnchanged) {
  ProcessResult changed =
      warehouse_->sql(*project_, "update raw.orders set status = upper(status) where order_id <= 5");
  ASSERT_EQ(changed.exit_code, 0) << changed.output << changed.errors;
  std::string errors;
  auto [code, doc] = run_ods({"--cutoff", "always"}, &errors);
  ASSERT_EQ(code, 0) << doc.dump(2) << errors;
  auto e = cutoff_entries_by_name(doc);
  EXPECT_EQ(decision(e.at("stg_orders")), "build:new_upstream_data");
  for (const char* reader : {"fct_orders", "orders_daily"}) {
    EXPECT_EQ(decision(e.at(reader)), "reuse:early_cutoff") << e.at(reader).dump(2);
    const auto& message = e.at(reader).at("reasons").at(0).at("message").get<std::string>();
    EXPECT_NE(message.find("stg_orders was rebuilt by run"), std::string::npos) << message;
    bool evidence = false;
    for (const auto& ev : e.at(reader).at("evidence"))
      evidence |= ev.at("kind") == "parent_content" && ev.at("subject") == "model.shop.stg_orders" &&
                  ev.at("exactness") == "exact";
    EXPECT_TRUE(evidence) << e.at(reader).dump(2);
  }
  EXPECT_EQ(decision(e.at("stg_customers")), "reuse:unchanged");
  // Only stg_orders is built for the change (dim_customers builds in every run: its hook reads
  // env_var and no digest key is set); every other node is reused. The reuse corpus measured this
  // step as well (7 of 8) until it was left to this test.
  for (const auto& [name, entry] : e) {
    if (name == "stg_orders" || name == "dim_customers") continue;
    EXPECT_EQ(entry.at("action"), "reuse") << entry.dump(2);
  }
  EXPECT_EQ(decision(e.at("dim_customers")), "build:reads_run_context");
  EXPECT_NE(errors.find("early cutoff: "), std::string::npos) << errors;
  expect_same_as_full_build(*project_, *warehouse_);

  ProcessResult appended = warehouse_->generate_data(*project_, {"--append-orders", "5"});
  ASSERT_EQ(appended.exit_code, 0) << appended.output << appended.errors;
  auto [code2, doc2] = run_ods({"--cutoff", "always"}, &errors);
  ASSERT_EQ(code2, 0) << doc2.dump(2) << errors;
  e = cutoff_entries_by_name(doc2);
  EXPECT_EQ(decision(e.at("stg_orders")), "build:new_upstream_data");
  for (const char* reader : {"fct_orders", "orders_daily"}) {
    EXPECT_EQ(decision(e.at(reader)), "build:new_upstream_data") << e.at(reader).dump(2);
    const auto& message = e.at(reader).at("reasons").at(0).at("message").get<std::string>();
    EXPECT_NE(message.find("(content "), std::string::npos) << message;  // both fingerprints, shortened
  }
  expect_same_as_full_build(*project_, *warehouse_);
}

// A run whose last wave early cutoff spares entirely (dim_customers, which builds in every run,
// left out) still counts in the scope's metrics: the wave before it recorded without them.
TEST_P(ShopRun, ARunWhoseLastWaveIsWhollyCutOffIsCountedInTheMetrics) {
  ProcessResult changed =
      warehouse_->sql(*project_, "update raw.orders set status = upper(status) where order_id <= 5");
  ASSERT_EQ(changed.exit_code, 0) << changed.output << changed.errors;
  const fs::path metrics = project_->dir() / "metrics.txt";
  std::string errors;
  auto [code, doc] =
      run_ods({"--cutoff", "always", "--exclude", "dim_customers", "--metrics-file", metrics.string()}, &errors);
  ASSERT_EQ(code, 0) << doc.dump(2) << errors;
  EXPECT_NE(errors.find("early cutoff: "), std::string::npos) << errors;
  EXPECT_EQ(decision(cutoff_entries_by_name(doc).at("fct_orders")), "reuse:early_cutoff");
  // The baseline's two runs and this one.
  const std::string text = read_text_file(metrics);
  const std::regex succeeded("\nods_runs_total\\{[^}]*outcome=\"succeeded\"[^}]*\\} ([0-9.e+]+)\n");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(text, m, succeeded)) << text;
  EXPECT_EQ(std::stod(m[1].str()), 3.0) << text;
}

// Early cutoff after a code change (issue 27 item 2): a node rebuilt because its code changed
// spares its readers when its output, columns (names and types, in order) and rows, is the one
// they read; any other change of its output builds them. Each scenario ends compared with a
// full build, columns included (relation_contents).
class ShopCodeCutoff : public ShopRun {
 protected:
  // A digest key, so that dim_customers (its pre-hook reads an env var) is reusable, and one run
  // that builds it once for the key: the scenario's run then decides it on its inputs alone.
  void use_digest_key() {
    const fs::path config = project_->dir() / "config-home";
    fs::create_directories(config);
    project_->add_env({"XDG_CONFIG_HOME=" + config.string(), "ODS_DIGEST_KEY="});
    ProcessResult key = project_->ods({"state", "key", "--create"});
    ASSERT_EQ(key.exit_code, 0) << key.output << key.errors;
    auto [code, doc] = run_ods();
    ASSERT_EQ(code, 0) << doc.dump(2);
    ASSERT_EQ(decision(entry(doc.at("plan"), "dim_customers")), "build:fingerprint_changed");
  }

  // `ods state run --cutoff always` after a code edit; its entries by name.
  std::map<std::string, nlohmann::json> run_after_edit() {
    std::string errors;
    auto [code, doc] = run_ods({"--cutoff", "always"}, &errors);
    EXPECT_EQ(code, 0) << doc.dump(2) << errors;
    errors_ = errors;
    if (doc.is_discarded() || !doc.contains("plan")) return {};
    return cutoff_entries_by_name(doc);
  }

  // `reader` is reused with early_cutoff on `parent`'s output after `parent`'s code change: the
  // reason says so, and the evidence names the change and the content, columns and rows.
  static void expect_cut_off_after_code_change(const nlohmann::json& reader, const std::string& parent) {
    EXPECT_EQ(decision(reader), "reuse:early_cutoff") << reader.dump(2);
    const std::string message = first_reason_message(reader);
    EXPECT_NE(message.find(parent + " was rebuilt for a code change by run"), std::string::npos) << message;
    EXPECT_NE(message.find("came out with the columns and rows it read"), std::string::npos) << message;
    const nlohmann::json* changed = evidence_about(reader, "parent_code_changed", "model.shop." + parent);
    ASSERT_NE(changed, nullptr) << reader.dump(2);
    const nlohmann::json* content = evidence_about(reader, "parent_content", "model.shop." + parent);
    ASSERT_NE(content, nullptr) << reader.dump(2);
    EXPECT_EQ(content->at("exactness"), "exact");
    const std::string value = content->at("value").get<std::string>();
    EXPECT_NE(value.find(";schema="), std::string::npos) << value;
    EXPECT_NE(value.find("(columns and rows)"), std::string::npos) << value;
  }

  std::string errors_;
};

// (a) A project macro edited so that it renders different but equivalent SQL: the three models
// that call it are rebuilt for code; what reads them only is reused, proven by their output.
TEST_P(ShopCodeCutoff, AnEquivalentMacroEditSparesTheReadersOfTheModelsThatCallIt) {
  use_digest_key();
  project_->replace_in("macros/cents_to_dollars.sql", "cast(({{ column_name }}) / 100.0 as",
                       "cast(({{ column_name }}) * 0.01 as");
  auto e = run_after_edit();
  ASSERT_FALSE(e.empty());
  for (const char* called : {"stg_payments", "fct_orders", "orders_daily"})
    EXPECT_EQ(decision(e.at(called)), "build:fingerprint_changed") << e.at(called).dump(2);
  expect_cut_off_after_code_change(e.at("dim_customers"), "fct_orders");
  if (e.contains("order_status_summary")) {  // DuckDB only (a Python model)
    expect_cut_off_after_code_change(e.at("order_status_summary"), "fct_orders");
  }
  for (const char* same : {"stg_orders", "stg_customers", "country_codes"})
    EXPECT_EQ(decision(e.at(same)), "reuse:unchanged") << e.at(same).dump(2);
  EXPECT_NE(errors_.find("a code change"), std::string::npos) << errors_;  // the wave's why
  expect_same_as_full_build(*project_, *warehouse_);
}

// (b) `select distinct` over rows that were already unique: stg_orders is rebuilt for code, and
// fct_orders and orders_daily (an incremental model) are reused on its unchanged output.
TEST_P(ShopCodeCutoff, SelectDistinctOverUniqueRowsSparesItsReaders) {
  use_digest_key();
  project_->replace_in("models/staging/stg_orders.sql", "select\n    order_id,", "select distinct\n    order_id,");
  auto e = run_after_edit();
  ASSERT_FALSE(e.empty());
  EXPECT_EQ(decision(e.at("stg_orders")), "build:fingerprint_changed") << e.at("stg_orders").dump(2);
  for (const char* reader : {"fct_orders", "orders_daily"})
    expect_cut_off_after_code_change(e.at(reader), "stg_orders");
  for (const auto& [name, entry] : e) {
    if (name == "stg_orders") continue;
    EXPECT_EQ(entry.at("action"), "reuse") << entry.dump(2);
  }
  expect_same_as_full_build(*project_, *warehouse_);
}

// (c) A code change that alters a column's type but no row (order_id integer -> bigint: DuckDB's
// hash and PostgreSQL's row text are the same for both): only the columns in the content tell,
// so the readers are built, and fct_orders' order_id is a bigint as in a full build.
TEST_P(ShopCodeCutoff, AColumnTypeChangedWithTheSameRowsBuildsTheReaders) {
  project_->replace_in("models/staging/stg_orders.sql", "select\n    order_id,",
                       "select\n    cast(order_id as bigint) as order_id,");
  auto e = run_after_edit();
  ASSERT_FALSE(e.empty());
  EXPECT_EQ(decision(e.at("stg_orders")), "build:fingerprint_changed") << e.at("stg_orders").dump(2);
  for (const char* reader : {"fct_orders", "orders_daily"}) {
    EXPECT_EQ(decision(e.at(reader)), "build:upstream_code_changed") << e.at(reader).dump(2);
    const std::string message = first_reason_message(e.at(reader));
    EXPECT_NE(message.find("stg_orders was rebuilt for a code change"), std::string::npos) << message;
    EXPECT_NE(message.find("(content "), std::string::npos) << message;  // both fingerprints, shortened
  }
  expect_same_as_full_build(*project_, *warehouse_);
}

// (d) A code change that alters rows (ordered_at a second later): the readers are built.
TEST_P(ShopCodeCutoff, ACodeChangeThatAltersRowsBuildsTheReaders) {
  project_->replace_in("models/staging/stg_orders.sql", "    ordered_at,\n",
                       "    ordered_at + interval '1 second' as ordered_at,\n");
  auto e = run_after_edit();
  ASSERT_FALSE(e.empty());
  EXPECT_EQ(decision(e.at("stg_orders")), "build:fingerprint_changed") << e.at("stg_orders").dump(2);
  for (const char* reader : {"fct_orders", "orders_daily"})
    EXPECT_EQ(decision(e.at(reader)), "build:upstream_code_changed") << e.at(reader).dump(2);
  expect_same_as_full_build(*project_, *warehouse_);
}

INSTANTIATE_TEST_SUITE_P(Warehouses, ShopCodeCutoff,
                         ::testing::Values(WarehouseParam{"DuckDb", &duckdb_warehouse},
                                           WarehouseParam{"Postgres", &postgres_warehouse}),
                         [](const ::testing::TestParamInfo<WarehouseParam>& p) { return std::string(p.param.name); });

INSTANTIATE_TEST_SUITE_P(Warehouses, ShopRun,
                         ::testing::Values(WarehouseParam{"DuckDb", &duckdb_warehouse},
                                           WarehouseParam{"Postgres", &postgres_warehouse}),
                         [](const ::testing::TestParamInfo<WarehouseParam>& p) { return std::string(p.param.name); });

}  // namespace
}  // namespace ods::testing
