// The dbt compatibility matrix: examples/shop's core scenarios on each supported dbt-core
// minor (1.8, 1.9, 1.10, 1.11, 1.12), each in its cached venv (scripts/dbt-venv.sh; the ctest
// fixtures dbt_venv_<minor> build them), through `ods --dbt`-equivalent $ODS_DBT (the
// harness's DbtProject::use_venv); and the refusal of an unsupported dbt (1.7, a manifest v13).
//
// Every version runs DbtMatrix (first run builds all; nothing changed reuses; `ods state
// record` on that version's own `dbt build`). The oldest and the newest (1.8, 1.12) also run
// DbtMatrixFull (new rows; a SQL edit; a failing model; `ods state test`), which keeps the
// matrix within its CI budget (docs/cli.md, "Supported dbt versions"). DuckDB (the `dev`
// target) only: the adapters' own SQL is not what differs between dbt-core releases.
//
// examples/shop is written for dbt 1.10 and later: generic tests take `arguments:` (1.10) and
// the snapshot is YAML (1.9). On older versions the suite writes them as users of those
// versions do (as_written_for).
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <regex>

#include "harness/dbt_project.h"
#include "harness/shop_baseline.h"

namespace ods::testing {
namespace {

namespace fs = std::filesystem;

// The fallback the driver announces when it cannot keep dbt's manifest (dbt_driver.h).
constexpr const char* kFallback = "running one dbt process per command";

// The cached venv of `minor` (built by scripts/dbt-venv.sh when missing): its bin directory.
fs::path venv_of(const std::string& minor) {
  ProcessResult r = run_process({(source_dir() / "scripts" / "dbt-venv.sh").string(), minor}, source_dir());
  EXPECT_EQ(r.exit_code, 0) << r.errors;
  std::string dir = r.output;
  while (!dir.empty() && dir.back() == '\n') dir.pop_back();
  dir = dir.substr(dir.rfind('\n') == std::string::npos ? 0 : dir.rfind('\n') + 1);
  return fs::path(dir) / "bin";
}

// (major, minor) of "1.10".
std::pair<int, int> minor_number(const std::string& minor) {
  return {std::stoi(minor), std::stoi(minor.substr(minor.find('.') + 1))};
}

// Rewrites examples/shop's 1.10-isms for `minor`: generic tests' `arguments:` (1.10) become
// the test's own keys, and the YAML snapshot (1.9) a snapshot block, as dbt 1.8 users write it.
void as_written_for(DbtProject& p, const std::string& minor) {
  if (minor_number(minor) >= std::pair{1, 10}) return;
  for (const char* file : {"models/marts/_marts.yml", "models/staging/_staging.yml"}) {
    std::string text = p.read(file);
    const std::regex arguments("\n( +)arguments:\n((?:\\1  .*\n)+)");
    std::smatch m;
    while (std::regex_search(text, m, arguments)) {
      std::string keys = m[2].str(), unindented;
      for (std::size_t at = 0; at < keys.size();) {
        const std::size_t end = keys.find('\n', at);
        unindented += keys.substr(at + 2, end - at - 2) + "\n";
        at = end + 1;
      }
      text.replace(m.position(0), m.length(0), "\n" + unindented);
    }
    p.write(file, text);
  }
  if (minor_number(minor) >= std::pair{1, 9}) return;
  fs::remove(p.dir() / "snapshots" / "customers_snapshot.yml");
  p.write("snapshots/customers_snapshot.sql",
          "{% snapshot customers_snapshot %}\n"
          "{{ config(target_schema=target.schema, unique_key='customer_id', strategy='check', check_cols='all') }}\n"
          "select * from {{ source('raw', 'customers') }}\n"
          "{% endsnapshot %}\n");
}

struct OdsRun {
  int exit_code = -1;
  nlohmann::json doc;
  std::string errors;
};

// `ods state <command> --format json` on `p` with the project's dbt.
OdsRun ods_json(const DbtProject& p, const std::string& command, std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"state", command, "--format", "json", "--profiles-dir", p.dir().string()};
  args.insert(args.end(), extra.begin(), extra.end());
  ProcessResult r = p.ods(args);
  OdsRun out{r.exit_code, nlohmann::json::parse(r.output, nullptr, false), r.errors};
  EXPECT_FALSE(out.doc.is_discarded()) << "stdout:\n" << r.output << "\nstderr:\n" << r.errors;
  return out;
}

// Per version: data, the first run (asserted: everything builds, never built) and a second
// (the incremental model's steady state), kept as every scenario's starting point.
struct Baseline {
  std::unique_ptr<DbtProject> project;
  OdsRun first;
};

const Baseline& baseline_of(const std::string& minor) {
  static std::map<std::string, Baseline> baselines;
  auto [it, made] = baselines.try_emplace(minor);
  if (!made) return it->second;
  auto p = std::make_unique<DbtProject>("shop");
  p->use_venv(venv_of(minor));
  as_written_for(*p, minor);
  ProcessResult data = p->generate_data();
  EXPECT_EQ(data.exit_code, 0) << data.errors;
  it->second.first = ods_json(*p, "run");
  OdsRun second = ods_json(*p, "run");
  EXPECT_EQ(second.exit_code, 0) << second.errors;
  it->second.project = std::move(p);
  return it->second;
}

std::string param_name(const ::testing::TestParamInfo<std::string>& info) {
  return "dbt_" + std::regex_replace(info.param, std::regex("\\."), "_");
}

class DbtMatrix : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const Baseline& baseline = baseline_of(GetParam());
    ASSERT_NE(baseline.project, nullptr);
    ASSERT_EQ(baseline.first.exit_code, 0) << baseline.first.errors;
    project_.emplace(DbtProject::copy_of(*baseline.project));
  }
  std::optional<DbtProject> project_;
};

TEST_P(DbtMatrix, TheFirstRunBuildsEverythingInOneDbtDriver) {
  const OdsRun& first = baseline_of(GetParam()).first;
  const auto& entries = first.doc.at("plan").at("entries");
  EXPECT_EQ(entries.size(), 9u) << first.doc.at("plan").dump(2);
  for (const auto& e : entries) EXPECT_EQ(decision(e), "build:never_built") << e.dump();
  EXPECT_EQ(first.doc.at("run").at("outcome"), "success") << first.doc.at("run").dump(2);
  // The driver found everything it uses in this dbt and kept the parsed manifest.
  EXPECT_EQ(first.errors.find(kFallback), std::string::npos) << first.errors;
}

TEST_P(DbtMatrix, NothingChangedReusesAllButTheAlwaysBuiltNode) {
  OdsRun run = ods_json(*project_, "run");
  ASSERT_EQ(run.exit_code, 0) << run.errors;
  for (const auto& e : run.doc.at("plan").at("entries")) {
    EXPECT_EQ(decision(e), e.at("name") == "dim_customers" ? "build:reads_run_context" : "reuse:unchanged")
        << e.dump(2);
  }
  EXPECT_EQ(run.doc.at("run").at("counts").at("built"), 1);
}

TEST_P(DbtMatrix, RecordTakesThisVersionsOwnBuild) {
  const auto snapshots = [&] {
    ProcessResult r = project_->ods({"state", "history", "--format", "json", "--limit", "0"});
    EXPECT_EQ(r.exit_code, 0) << r.errors;
    return nlohmann::json::parse(r.output).at("snapshots").size();
  };
  const std::size_t before = snapshots();
  ODS_ASSERT_OK(project_->dbt({"source", "freshness"}));  // the evidence the record keeps
  ODS_ASSERT_OK(project_->dbt({"build", "--select", "stg_orders+"}));
  ODS_ASSERT_OK(project_->ods({"state", "record"}));
  EXPECT_EQ(snapshots(), before + 1);
  // The recorded build is this version's: a plan on its compiled artifacts reuses it.
  refresh_and_compile(*project_);
  auto plan = project_->plan_json();
  EXPECT_EQ(decision(entry(plan, "stg_orders")), "reuse:unchanged") << plan.dump(2);
  EXPECT_EQ(decision(entry(plan, "orders_daily")), "reuse:unchanged") << plan.dump(2);
}

INSTANTIATE_TEST_SUITE_P(Versions, DbtMatrix, ::testing::Values("1.8", "1.9", "1.10", "1.11", "1.12"), param_name);

class DbtMatrixFull : public DbtMatrix {};

TEST_P(DbtMatrixFull, NewRowsInASourceBuildItsReaders) {
  ODS_ASSERT_OK(project_->generate_data({"--append-orders", "5"}));
  OdsRun run = ods_json(*project_, "run");
  ASSERT_EQ(run.exit_code, 0) << run.errors;
  const auto& plan = run.doc.at("plan");
  EXPECT_EQ(decision(entry(plan, "stg_orders")), "build:new_upstream_data");
  EXPECT_EQ(decision(entry(plan, "orders_daily")), "build:new_upstream_data");
  EXPECT_EQ(decision(entry(plan, "stg_customers")), "reuse:unchanged");
  EXPECT_EQ(decision(entry(plan, "country_codes")), "reuse:unchanged");
}

TEST_P(DbtMatrixFull, ASqlEditBuildsTheNodeAndItsDescendants) {
  project_->replace_in("models/staging/stg_orders.sql", "select\n", "select distinct\n");
  OdsRun run = ods_json(*project_, "run");
  ASSERT_EQ(run.exit_code, 0) << run.errors;
  const auto& plan = run.doc.at("plan");
  EXPECT_EQ(decision(entry(plan, "stg_orders")), "build:fingerprint_changed");
  EXPECT_EQ(decision(entry(plan, "orders_daily")), "build:upstream_code_changed");
  EXPECT_EQ(decision(entry(plan, "fct_orders")), "build:upstream_code_changed");
  EXPECT_EQ(decision(entry(plan, "stg_customers")), "reuse:unchanged");
  EXPECT_EQ(decision(entry(plan, "country_codes")), "reuse:unchanged");
}

TEST_P(DbtMatrixFull, AFailingModelKeepsItsStateAndIsRebuiltNextRun) {
  project_->replace_in("models/marts/fct_orders.sql", "o.loaded_at\n", "o.loaded_at, no_such_column\n");
  OdsRun failed = ods_json(*project_, "run");
  EXPECT_NE(failed.exit_code, 0) << failed.doc.dump(2);
  EXPECT_GE(failed.doc.at("run").at("counts").at("failed").get<int>(), 1);
  OdsRun again = ods_json(*project_, "run");
  EXPECT_NE(again.exit_code, 0);
  EXPECT_EQ(decision(entry(again.doc.at("plan"), "fct_orders")), "build:fingerprint_changed");
  EXPECT_EQ(entry(again.doc.at("plan"), "dim_customers").at("action"), "build");
  EXPECT_EQ(decision(entry(again.doc.at("plan"), "stg_orders")), "reuse:unchanged");
}

TEST_P(DbtMatrixFull, StateTestRunsOnlyTheChecksOfWhatChanged) {
  OdsRun nothing = ods_json(*project_, "test");
  ASSERT_EQ(nothing.exit_code, 0) << nothing.errors;
  EXPECT_EQ(nothing.doc.at("run").at("outcome"), "nothing_to_test") << nothing.doc.dump(2);
  ODS_ASSERT_OK(project_->generate_data({"--append-orders", "5"}));
  OdsRun tested = ods_json(*project_, "test");
  ASSERT_EQ(tested.exit_code, 0) << tested.errors;
  EXPECT_EQ(tested.doc.at("run").at("outcome"), "tested");
  std::vector<std::string> ran;
  for (const auto& e : tested.doc.at("checks").at("entries"))
    if (e.at("action") == "run") ran.push_back(e.at("name"));
  EXPECT_EQ(ran, std::vector<std::string>{"raw.orders"}) << tested.doc.dump(2);
}

INSTANTIATE_TEST_SUITE_P(OldestAndNewest, DbtMatrixFull, ::testing::Values("1.8", "1.12"), param_name);

// dbt-core 1.7 (manifest v11) in its cached venv: refused by the driver before dbt runs, and
// its manifest refused by `ods state plan`, each naming the version and the supported range.
TEST(UnsupportedDbt, Dbt17IsRefusedNamingItsVersionAndTheSupportedRange) {
  DbtProject p("shop");
  p.use_venv(venv_of("1.7"));
  ODS_ASSERT_OK(p.generate_data());
  ProcessResult run = p.ods({"state", "run", "--profiles-dir", p.dir().string()});
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.errors.find("dbt-core 1.7.20 is not supported: ODS supports dbt-core 1.8 to 1.12"), std::string::npos)
      << run.errors;
  EXPECT_FALSE(fs::exists(p.dir() / "target" / "run_results.json")) << "refused before dbt ran";

  ODS_ASSERT_OK(p.dbt({"parse"}));  // 1.7 itself writes its manifest (v11)
  ProcessResult plan = p.ods({"state", "plan"});
  EXPECT_NE(plan.exit_code, 0);
  EXPECT_NE(plan.errors.find("manifest/v11.json\" (written by dbt 1.7.20) is not supported"), std::string::npos)
      << plan.errors;
  EXPECT_NE(plan.errors.find("dbt-core 1.8 to 1.12"), std::string::npos) << plan.errors;
}

// A manifest schema newer than v12 (as a future dbt would write) is refused, naming both.
TEST(UnsupportedDbt, AManifestSchemaNewerThanV12IsRefused) {
  DbtProject p("shop");
  p.use_venv(venv_of("1.12"));
  ODS_ASSERT_OK(p.generate_data());
  ODS_ASSERT_OK(p.dbt({"compile"}));
  auto manifest = nlohmann::json::parse(p.read("target/manifest.json"));
  manifest["metadata"]["dbt_schema_version"] = "https://schemas.getdbt.com/dbt/manifest/v13.json";
  manifest["metadata"]["dbt_version"] = "1.13.0";
  p.write("target/manifest.json", manifest.dump());
  ProcessResult plan = p.ods({"state", "plan"});
  EXPECT_NE(plan.exit_code, 0);
  EXPECT_NE(plan.errors.find("manifest/v13.json\" (written by dbt 1.13.0) is not supported"), std::string::npos)
      << plan.errors;
  EXPECT_NE(plan.errors.find("dbt-core 1.8 to 1.12"), std::string::npos) << plan.errors;
}

}  // namespace
}  // namespace ods::testing
