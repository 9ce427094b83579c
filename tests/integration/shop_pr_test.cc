// `ods state pr` on examples/shop, on DuckDB and PostgreSQL (issue 26, item 4): production runs
// (target dev / pg), then a pull request changes one model and builds its environment in target
// pr / pg_pr: only that model and its readers build there, in the PR's schema; every other
// node they read comes from production (deferred, or cloned as views); production's recorded
// state and its relations are untouched; the exit status is dbt build's on that selection.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <ranges>
#include <set>

#include "harness/relation_contents.h"
#include "harness/shop_baseline.h"
#include "harness/warehouse.h"

namespace ods::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct WarehouseParam {
  const char* name;
  Warehouse& (*get)();
  const char* prod_target;
  const char* pr_target;
};

// GoogleTest finds the parameter printer by this name.
void PrintTo(const WarehouseParam& p, std::ostream* os) { *os << p.name; }  // NOLINT(readability-identifier-naming)

// Production, once per warehouse: examples/shop generated and run twice by `ods state run` (the
// second run is the incremental model's steady state), with a digest key so that hooks reading
// env_var are fingerprinted and only code changes build. Each test works on a copy of its project
// (its state file; on DuckDB its database file too); on PostgreSQL the copies share the database,
// and each test drops the PR's schema when it ends, so production's relations stay as they are.
struct Production {
  std::unique_ptr<DbtProject> project;
  std::vector<std::string> nodes;
  std::map<std::string, std::string> contents;
};

ProcessResult ods_in(const DbtProject& p, std::vector<std::string> args) {
  args.insert(args.end(), {"--profiles-dir", p.dir().string()});
  return p.ods(args);
}

const Production* production(Warehouse& w, const char* prod_target) {
  static std::map<std::string, std::unique_ptr<Production>> made;
  auto [it, first_use] = made.try_emplace(w.name());
  if (!first_use) return it->second.get();
  auto prod = std::make_unique<Production>();
  prod->project = std::make_unique<DbtProject>("shop");
  w.connect(*prod->project);
  prod->project->add_env({"ODS_DIGEST_KEY=pr-environment-test-key-0123456789abcdef"});
  const ProcessResult loaded = w.generate_data(*prod->project);
  EXPECT_EQ(loaded.exit_code, 0) << loaded.output << loaded.errors;
  for (int i = 0; i < 2 && loaded.exit_code == 0; ++i) {
    const ProcessResult r = ods_in(*prod->project, {"state", "run", "--target", prod_target});
    EXPECT_EQ(r.exit_code, 0) << r.output << r.errors;
  }
  prod->nodes = {"stg_orders",    "stg_customers", "stg_payments", "fct_orders",
                 "dim_customers", "orders_daily",  "country_codes"};
  if (w.runs_python_models()) prod->nodes.push_back("order_status_summary");
  if (!::testing::Test::HasFailure()) {
    prod->contents = relation_contents(*prod->project, w, prod->nodes);
    if (!::testing::Test::HasFailure()) it->second = std::move(prod);
  }
  return it->second.get();
}

class ShopPr : public ::testing::TestWithParam<WarehouseParam> {
 protected:
  void SetUp() override {
    warehouse_ = &GetParam().get();
    ASSERT_TRUE(warehouse_->unavailable().empty()) << warehouse_->unavailable();
    prod_ = production(*warehouse_, GetParam().prod_target);
    ASSERT_NE(prod_, nullptr) << "production's runs on " << warehouse_->name() << " failed";
    project_.emplace(DbtProject::copy_of(*prod_->project));
    prod_nodes_ = prod_->nodes;
    prod_contents_ = prod_->contents;
    prod_state_ = read_text_file(project_->dir() / ".ods" / "state.db");
    ASSERT_FALSE(prod_state_.empty());
    prod_history_ = history();
  }

  void TearDown() override {
    // On PostgreSQL production's database is shared by the tests: the PR's schema goes.
    if (project_ && warehouse_->name() == "Postgres") warehouse_->sql(*project_, "drop schema if exists pr cascade");
  }

  ProcessResult ods(std::vector<std::string> args) const { return ods_in(*project_, std::move(args)); }

  // `ods state pr --format json` (production's target, the PR's, `extra`): {exit code, document}.
  std::pair<int, json> pr(std::vector<std::string> extra = {}) const {
    std::vector<std::string> args{"state",
                                  "pr",
                                  "--format",
                                  "json",
                                  "--read-only-state",
                                  "--target",
                                  GetParam().prod_target,
                                  "--pr-target",
                                  GetParam().pr_target};
    args.insert(args.end(), extra.begin(), extra.end());
    const ProcessResult r = ods(args);
    json doc = json::parse(r.output, nullptr, false);
    EXPECT_FALSE(doc.is_discarded()) << "stdout:\n" << r.output << "\nstderr:\n" << r.errors;
    if (doc.is_discarded()) doc = json{{"pr", {{"built", json::array()}, {"from_production", json::array()}}}};
    return {r.exit_code, doc};
  }

  json history() const {
    const ProcessResult r =
        project_->ods({"state", "history", "--format", "json", "--limit", "0", "--target", GetParam().prod_target});
    EXPECT_EQ(r.exit_code, 0) << r.errors;
    return json::parse(r.output, nullptr, false);
  }

  // Rows of `sql` in the project's warehouse, "|" between columns, one per line.
  std::string query(const std::string& sql) const {
    if (warehouse_->name() == "Postgres") return warehouse_->sql(*project_, sql).output;
    const std::string script =
        "import duckdb,sys\ncon=duckdb.connect(sys.argv[2], read_only=True)\n"
        "for row in con.execute(sys.argv[1]).fetchall(): print('|'.join(str(v) for v in row))\n";
    const ProcessResult r =
        run_process({(project_->venv() / "python").string(), "-c", script, sql, project_->duckdb_file()},
                    project_->dir(), project_->env());
    EXPECT_EQ(r.exit_code, 0) << r.errors;
    return r.output;
  }

  std::string pr_relations() const {
    return query(
        "select table_name || ':' || case when table_type = 'VIEW' then 'view' else 'table' end "
        "from information_schema.tables where table_schema = 'pr' order by 1");
  }

  // Production is as it was: its recorded state byte for byte, its history, its relations' rows.
  void expect_production_untouched() const {
    EXPECT_EQ(read_text_file(project_->dir() / ".ods" / "state.db"), prod_state_)
        << "a PR environment changed production's state file";
    EXPECT_EQ(history(), prod_history_);
    EXPECT_EQ(relation_contents(*project_, *warehouse_, prod_nodes_), prod_contents_);
    EXPECT_EQ(query("select column_name from information_schema.columns where table_schema = 'main' and "
                    "table_name = 'fct_orders' and column_name = 'pr_marker'"),
              "");
  }

  void change_fct_orders() const {
    project_->replace_in("models/marts/fct_orders.sql", "    o.loaded_at\n", "    o.loaded_at,\n    1 as pr_marker\n");
  }

  Warehouse* warehouse_ = nullptr;
  const Production* prod_ = nullptr;
  std::optional<DbtProject> project_;
  std::vector<std::string> prod_nodes_;
  std::map<std::string, std::string> prod_contents_;
  std::string prod_state_;
  json prod_history_;
};

std::set<std::string> names(const json& list) {
  std::set<std::string> out;
  for (const auto& e : list) out.insert(e.at("name").get<std::string>());
  return out;
}

std::string first_reason(const json& built, const std::string& name) {
  for (const auto& e : built)
    if (e.at("name") == name) return e.at("reasons").at(0).at("code");
  return "";
}

TEST_P(ShopPr, NothingChangedBuildsNothing) {
  auto [code, doc] = pr();
  EXPECT_EQ(code, 0) << doc.dump(2);
  EXPECT_TRUE(doc.at("pr").at("built").empty()) << doc.at("pr").dump(2);
  EXPECT_EQ(doc.at("summary").at("outcome"), "nothing to build");
  EXPECT_EQ(pr_relations(), "");
  expect_production_untouched();
}

TEST_P(ShopPr, OneChangedModelAndItsReadersBuildInThePrSchemaTheRestIsReadFromProduction) {
  change_fct_orders();
  auto [code, doc] = pr();
  ASSERT_EQ(code, 0) << doc.dump(2);
  const json& env = doc.at("pr");
  std::set<std::string> expected{"fct_orders", "dim_customers"};
  if (warehouse_->runs_python_models()) expected.insert("order_status_summary");
  EXPECT_EQ(names(env.at("built")), expected) << env.dump(2);
  EXPECT_EQ(first_reason(env.at("built"), "fct_orders"), "fingerprint_changed");
  EXPECT_EQ(first_reason(env.at("built"), "dim_customers"), "upstream_code_changed");
  for (const auto& e : env.at("built")) EXPECT_EQ(e.at("status"), "success") << e.dump();
  // fct_orders reads stg_orders and (through the ephemeral model) stg_payments; dim_customers stg_customers.
  const auto from_production = names(env.at("from_production"));
  for (const char* n : {"stg_orders", "stg_payments", "stg_customers"})
    EXPECT_TRUE(from_production.contains(n)) << n << " " << env.dump(2);
  for (const auto& e : env.at("from_production")) EXPECT_EQ(e.at("how"), "defer");
  // The tests of what was built ran, and passed.
  EXPECT_GT(env.at("counts").at("tests_passed").get<int>(), 0) << env.dump(2);
  EXPECT_EQ(env.at("counts").at("tests_failed"), 0);
  EXPECT_EQ(env.at("recorded"), false);
  // Only the built nodes are in the PR's schema, and they are the PR's code.
  std::string tables;
  for (const auto& n : expected) tables += n + ":table\n";
  EXPECT_EQ(pr_relations(), tables);
  EXPECT_EQ(query("select column_name from information_schema.columns where table_schema = 'pr' and "
                  "table_name = 'fct_orders' and column_name = 'pr_marker'"),
            "pr_marker\n");
  // Built from production's rows: the PR's fct_orders has as many as production's.
  EXPECT_EQ(query("select count(*) from pr.fct_orders"), query("select count(*) from main.fct_orders"));
  expect_production_untouched();
}

// Issue 41, item 1: a PR whose code compiles to production's recorded fingerprints (a comment
// dbt's state:modified would build for) builds nothing, and the warehouse is not even probed:
// production's compile keys and fingerprints come from its recorded state.
TEST_P(ShopPr, ACommentOnlyEditBuildsNothingAndProbesNothing) {
  project_->replace_in("models/staging/stg_orders.sql", "", "-- reviewed in this PR\n");
  const ProcessResult r = ods(
      {"state", "pr", "--read-only-state", "--target", GetParam().prod_target, "--pr-target", GetParam().pr_target});
  ASSERT_EQ(r.exit_code, 0) << r.output << r.errors;
  EXPECT_NE(r.output.find("the warehouse is not probed"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("probing"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("nothing to build"), std::string::npos) << r.output;
  EXPECT_EQ(pr_relations(), "");
  expect_production_untouched();
}

// Without production's recorded state (none in the store: a first PR, a wrong ODS_STATE) nothing
// is taken from a record: the whole project compiles, every node differs from production, and
// the PR environment builds them all, saying why.
TEST_P(ShopPr, WithoutProductionsStateEveryNodeBuildsSayingWhy) {
  std::filesystem::remove(project_->dir() / ".ods" / "state.db");
  auto [code, doc] = pr();
  ASSERT_EQ(code, 0) << doc.dump(2);
  const json& built = doc.at("pr").at("built");
  std::set<std::string> expected(prod_nodes_.begin(), prod_nodes_.end());
  expected.insert("customers_snapshot");
  EXPECT_EQ(names(built), expected) << doc.at("pr").dump(2);
  EXPECT_EQ(first_reason(built, "stg_orders"), "never_built");
  EXPECT_TRUE(doc.at("pr").at("from_production").empty()) << doc.at("pr").dump(2);
}

TEST_P(ShopPr, AFailingTestFailsThePrAsDbtBuildOnThatSelectionDoes) {
  // Every order twice: unique_fct_orders_order_id fails.
  project_->replace_in("models/marts/fct_orders.sql", "left join {{ ref('int_order_payments') }} as p using (order_id)",
                       "left join {{ ref('int_order_payments') }} as p using (order_id)\n"
                       "cross join (select 1 as twice union all select 2) as dup");
  auto [code, doc] = pr();
  EXPECT_EQ(code, 1) << doc.dump(2);
  const json& env = doc.at("pr");
  EXPECT_GT(env.at("counts").at("tests_failed").get<int>(), 0) << env.dump(2);
  bool unique_failed = false;
  for (const auto& t : env.at("tests"))
    unique_failed |= t.at("name") == "unique_fct_orders_order_id" && t.at("status") == "fail";
  EXPECT_TRUE(unique_failed) << env.dump(2);
  EXPECT_EQ(doc.at("summary").at("outcome"), "failure");
  // dbt build on the same selection, deferring to the same manifest (the parse's copy ODS read the
  // project from, where the ods dbt driver kept the parse), exits the same way.
  const auto parse_copy = project_->dir() / "target" / "ods-parse";
  const auto state = std::filesystem::exists(parse_copy / "manifest.json") ? parse_copy : project_->dir() / "target";
  std::vector<std::string> dbt{"build",        "--target",      GetParam().pr_target,
                               "--defer",      "--favor-state", "--state",
                               state.string(), "--target-path", (project_->dir() / "target" / "slim").string(),
                               "--select"};
  for (const auto& s : doc.at("summary").at("selection").get<std::string>() | std::views::split(' '))
    dbt.emplace_back(s.begin(), s.end());
  EXPECT_EQ(project_->dbt(dbt).exit_code, 1);
  expect_production_untouched();
}

TEST_P(ShopPr, ClonedUpstreamIsAViewOverProductionInThePrSchema) {
  change_fct_orders();
  auto [code, doc] = pr({"--upstream", "clone"});
  ASSERT_EQ(code, 0) << doc.dump(2);
  const json& env = doc.at("pr");
  for (const auto& e : env.at("from_production")) EXPECT_EQ(e.at("how"), "clone");
  const std::string relations = pr_relations();
  EXPECT_NE(relations.find("stg_orders:view"), std::string::npos) << relations;
  EXPECT_NE(relations.find("fct_orders:table"), std::string::npos) << relations;
  EXPECT_EQ(relations.find("orders_daily"), std::string::npos) << "not read by the PR: " << relations;
  expect_production_untouched();
}

TEST_P(ShopPr, APrTargetIsRequiredAndMustNotBeProductions) {
  const ProcessResult none = ods({"state", "pr", "--target", GetParam().prod_target});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.errors.find("--pr-target is required"), std::string::npos) << none.errors;
  const ProcessResult same =
      ods({"state", "pr", "--target", GetParam().prod_target, "--pr-target", GetParam().prod_target});
  EXPECT_EQ(same.exit_code, 2);
  expect_production_untouched();
}

// The profiles.yml of `p` with `<target>_alias`, a copy of output `target` (the same relations
// under another name), and `default_target` as the profile's `target:`.
void alias_production(const DbtProject& p, const std::string& target, const std::string& default_target) {
  std::string text = p.read("profiles.yml");
  const auto start = text.find("\n    " + target + ":\n");
  ASSERT_NE(start, std::string::npos) << text;
  auto end = start + 1;
  do end = text.find('\n', end) + 1;
  while (end < text.size() && text.compare(end, 6, "      ") == 0);
  std::string block = text.substr(start + 1, end - start - 1);
  block.replace(4, target.size(), target + "_alias");
  text.insert(end, block);
  const auto default_at = text.find("  target: dev\n");
  ASSERT_NE(default_at, std::string::npos) << text;
  text.replace(default_at, 14, "  target: " + default_target + "\n");
  p.write("profiles.yml", text);
}

// Issue 39, item 1: production's target is resolved as dbt resolves it (without --target, the
// profile's default), and a PR target whose relations are production's is refused before
// anything is built, naming the first relation both would write.
TEST_P(ShopPr, APrTargetThatIsProductionsByDefaultOrByAnotherNameIsRefusedBeforeAnyBuild) {
  const std::string prod = GetParam().prod_target;
  alias_production(*project_, prod, prod);
  change_fct_orders();
  const ProcessResult by_default = ods({"state", "pr", "--pr-target", prod});  // no --target: the profile's default
  EXPECT_EQ(by_default.exit_code, 2) << by_default.output << by_default.errors;
  EXPECT_NE(by_default.errors.find("names production's target '" + prod + "' (the default target of profile 'shop'"),
            std::string::npos)
      << by_default.errors;
  const ProcessResult aliased = ods({"state", "pr", "--target", prod, "--pr-target", prod + "_alias"});
  EXPECT_EQ(aliased.exit_code, 2) << aliased.output << aliased.errors;
  EXPECT_NE(aliased.errors.find("--pr-target " + prod + "_alias writes into production's relations"), std::string::npos)
      << aliased.errors;
  EXPECT_NE(aliased.errors.find("model.shop.fct_orders"), std::string::npos) << aliased.errors;
  EXPECT_EQ(aliased.output.find("building"), std::string::npos) << aliased.output;
  const ProcessResult unknown = ods({"state", "pr", "--target", prod, "--pr-target", "nosuch"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.errors.find("does not have a target named 'nosuch'"), std::string::npos) << unknown.errors;
  expect_production_untouched();
}

INSTANTIATE_TEST_SUITE_P(Warehouses, ShopPr,
                         ::testing::Values(WarehouseParam{"DuckDb", &duckdb_warehouse, "dev", "pr"},
                                           WarehouseParam{"Postgres", &postgres_warehouse, "pg", "pg_pr"}),
                         [](const ::testing::TestParamInfo<WarehouseParam>& p) { return std::string(p.param.name); });

}  // namespace
}  // namespace ods::testing
