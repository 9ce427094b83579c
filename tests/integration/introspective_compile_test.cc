// Run wherever `dbt build` runs (issue 27 item 0), with real dbt and DuckDB, on a project shaped
// like a package's integration project: a seed, staging models over it, and models whose Jinja
// queries a staging model at compile time to pivot its values (a run_query macro, and one
// written like dbt_utils.get_column_values, which raises a compilation error when the relation
// is missing). Before any build `dbt compile` fails on them; `ods state run` leaves them to
// dbt build (reason compile_needs_upstream), records their code from the manifest dbt build
// wrote, and reuses them afterwards. Any other compile error still fails the run with dbt's
// message and builds nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "harness/dbt_project.h"

namespace ods::testing {
namespace {

using nlohmann::json;

constexpr const char* kProject = R"(name: pivots
version: "1.0.0"
config-version: 2
profile: pivots
model-paths: ["models"]
macro-paths: ["macros"]
seed-paths: ["seeds"]
flags:
  send_anonymous_usage_stats: false
models:
  pivots:
    staging:
      +materialized: view
    marts:
      +materialized: table
)";

constexpr const char* kProfiles = R"(pivots:
  target: dev
  outputs:
    dev:
      type: duckdb
      path: pivots.duckdb
      threads: 2
)";

// run_query over the relation, as a package's pivot helper does.
constexpr const char* kColumnValues = R"({% macro column_values(relation, column) %}
  {% set rows = run_query("select distinct " ~ column ~ " from " ~ relation ~ " order by 1") %}
  {% if execute %}{{ return(rows.columns[0].values()) }}{% else %}{{ return([]) }}{% endif %}
{% endmacro %}
)";

// dbt_utils.get_column_values' shape: a missing relation is a compilation error of its own.
constexpr const char* kGetColumnValues = R"({% macro get_column_values(table, column) %}
  {% if not execute %}{{ return([]) }}{% endif %}
  {% set found = adapter.get_relation(database=table.database, schema=table.schema, identifier=table.identifier) %}
  {% if found is none %}
    {{ exceptions.raise_compiler_error("In get_column_values(): relation " ~ table ~ " does not exist and no default value was provided.") }}
  {% endif %}
  {% set rows = run_query("select distinct " ~ column ~ " from " ~ found ~ " order by 1") %}
  {{ return(rows.columns[0].values()) }}
{% endmacro %}
)";

std::string pivot_over(const std::string& macro, const std::string& model, const std::string& column) {
  return "select\n{% for k in " + macro + "(ref('" + model + "'), '" + column +
         "') %}\n  sum(case when kind = '{{ k }}' then amount else 0 end) as amount_{{ k }},\n{% endfor %}\n"
         "  count(*) as n\nfrom {{ ref('" +
         model + "') }}\n";
}

struct RunResult {
  int code = -1;
  json doc;
  std::string output, errors;
};

std::string decision(const json& plan, const std::string& name) {
  const json& e = entry(plan, name);
  return e.at("action").get<std::string>() + ":" + e.at("reasons").at(0).at("code").get<std::string>();
}

bool has_reason(const json& plan, const std::string& name, const std::string& code) {
  const auto codes = reason_codes(entry(plan, name));
  return std::find(codes.begin(), codes.end(), code) != codes.end();
}

class IntrospectiveCompile : public ::testing::Test {
 protected:
  void SetUp() override {
    project_.emplace(DbtProject::empty("pivots"));
    project_->use_duckdb_file("pivots.duckdb");
    for (const char* dir : {"macros", "seeds", "models/staging", "models/marts"})
      std::filesystem::create_directories(project_->dir() / dir);
    project_->write("dbt_project.yml", kProject);
    project_->write("profiles.yml", kProfiles);
    project_->write("macros/column_values.sql", kColumnValues);
    project_->write("macros/get_column_values.sql", kGetColumnValues);
    project_->write("seeds/raw_sales.csv", "id,kind,amount\n1,a,10\n2,b,20\n3,a,5\n4,c,7\n");
    project_->write("models/staging/stg_sales.sql", "select id, kind, amount from {{ ref('raw_sales') }}\n");
    project_->write("models/marts/sales_by_kind.sql", pivot_over("column_values", "stg_sales", "kind"));
    project_->write("models/marts/sales_report.sql",
                    "select n, amount_a + amount_b as ab from {{ ref('sales_by_kind') }}\n");
  }

  // `ods state run` with `extra` flags (e.g. --compile all).
  RunResult run(const std::vector<std::string>& extra = {}) const {
    std::vector<std::string> args{"state", "run", "--format", "json", "--profiles-dir", project_->dir().string()};
    args.insert(args.end(), extra.begin(), extra.end());
    ProcessResult r = project_->ods(args);
    RunResult out{r.exit_code, json::parse(r.output, nullptr, false), r.output, r.errors};
    if (out.doc.is_discarded()) out.doc = json{{"plan", {{"entries", json::array()}}}};
    return out;
  }

  std::string query(const std::string& sql) const {
    const std::string script =
        "import duckdb,sys\ncon=duckdb.connect(sys.argv[2], read_only=True)\n"
        "print(con.execute(sys.argv[1]).fetchone()[0])\n";
    ProcessResult r = run_process({(project_->venv() / "python").string(), "-c", script, sql, "pivots.duckdb"},
                                  project_->dir(), project_->env());
    return r.exit_code == 0 ? r.output.substr(0, r.output.find('\n')) : "error: " + r.errors;
  }

  bool relation_exists(const std::string& name) const {
    return query("select count(*) from information_schema.tables where table_name = '" + name + "'") == "1";
  }

  std::optional<DbtProject> project_;
};

TEST_F(IntrospectiveCompile, FirstRunBuildsAllThenReusesAndANewPairBuildsInItsTurn) {
  // Before anything is built, dbt compile itself fails on the pivot: what ODS used to stop on.
  const ProcessResult compile = project_->dbt({"compile"});
  ASSERT_NE(compile.exit_code, 0) << compile.output;
  EXPECT_NE(compile.output.find("sales_by_kind"), std::string::npos) << compile.output;

  const RunResult first = run();
  ASSERT_EQ(first.code, 0) << first.output << first.errors;
  const json& plan = first.doc.at("plan");
  for (const char* name : {"raw_sales", "stg_sales", "sales_by_kind", "sales_report"})
    EXPECT_EQ(decision(plan, name), "build:never_built") << name;
  EXPECT_TRUE(has_reason(plan, "sales_by_kind", "compile_needs_upstream")) << entry(plan, "sales_by_kind").dump(2);
  EXPECT_NE(entry(plan, "sales_by_kind").dump().find("stg_sales"), std::string::npos);
  EXPECT_EQ(first.doc.at("run").at("counts").at("built"), 4) << first.doc.at("run").dump(2);
  EXPECT_EQ(first.doc.at("run").at("recorded_from"), "manifest");
  EXPECT_EQ(query("select amount_a from main.sales_by_kind"), "15");
  EXPECT_EQ(query("select amount_c from main.sales_by_kind"), "7");

  // Nothing changed: everything reused, the pivot too (its code was recorded from dbt build).
  const RunResult second = run();
  ASSERT_EQ(second.code, 0) << second.output << second.errors;
  for (const char* name : {"raw_sales", "stg_sales", "sales_by_kind", "sales_report"})
    EXPECT_EQ(decision(second.doc.at("plan"), name), "reuse:unchanged") << second.doc.at("plan").dump(2);

  // A pull request adds a staging model and a pivot over it, written like dbt_utils'.
  project_->write("models/staging/stg_sales_doubled.sql",
                  "select id, kind || '2' as kind, amount * 2 as amount from {{ ref('stg_sales') }}\n");
  project_->write("models/marts/doubled_by_kind.sql", pivot_over("get_column_values", "stg_sales_doubled", "kind"));
  const RunResult third = run();
  ASSERT_EQ(third.code, 0) << third.output << third.errors;
  EXPECT_EQ(decision(third.doc.at("plan"), "stg_sales_doubled"), "build:never_built");
  EXPECT_EQ(decision(third.doc.at("plan"), "doubled_by_kind"), "build:never_built");
  EXPECT_TRUE(has_reason(third.doc.at("plan"), "doubled_by_kind", "compile_needs_upstream"));
  EXPECT_EQ(decision(third.doc.at("plan"), "sales_by_kind"), "reuse:unchanged");
  EXPECT_EQ(query("select amount_b2 from main.doubled_by_kind"), "40");

  const RunResult fourth = run();
  ASSERT_EQ(fourth.code, 0) << fourth.output << fourth.errors;
  EXPECT_EQ(fourth.doc.at("run").at("counts").at("built"), 0) << fourth.doc.at("plan").dump(2);
  EXPECT_EQ(decision(fourth.doc.at("plan"), "doubled_by_kind"), "reuse:unchanged");

  // The staging view dropped behind ODS's back: the pivot can't compile before it is rebuilt,
  // so it builds with that reason first, and its reader by rule 5.
  ASSERT_EQ(project_->sql("drop view main.stg_sales").exit_code, 0);
  const RunResult fifth = run();
  ASSERT_EQ(fifth.code, 0) << fifth.output << fifth.errors;
  EXPECT_EQ(decision(fifth.doc.at("plan"), "stg_sales"), "build:relation_missing");
  EXPECT_EQ(decision(fifth.doc.at("plan"), "sales_by_kind"), "build:compile_needs_upstream");
  EXPECT_EQ(decision(fifth.doc.at("plan"), "sales_report"), "build:upstream_code_changed");
  // its compile queries the view over the dropped one, whose error names the dropped ancestor
  EXPECT_EQ(decision(fifth.doc.at("plan"), "doubled_by_kind"), "build:compile_needs_upstream");
  EXPECT_EQ(query("select amount_a from main.sales_by_kind"), "15");
  const RunResult sixth = run();
  ASSERT_EQ(sixth.code, 0) << sixth.output << sixth.errors;
  EXPECT_EQ(sixth.doc.at("run").at("counts").at("built"), 0) << sixth.doc.at("plan").dump(2);
}

TEST_F(IntrospectiveCompile, AnyOtherCompileErrorStillFailsTheRunWithDbtsMessageAndBuildsNothing) {
  ASSERT_EQ(run().code, 0);
  project_->write("models/marts/fresh.sql", "select 1 as one\n");

  // A query over a relation that exists, failing for another reason (a column it lacks).
  project_->write("models/marts/by_missing_column.sql", pivot_over("column_values", "stg_sales", "colour"));
  const RunResult column = run();
  EXPECT_NE(column.code, 0) << column.output;
  EXPECT_NE(column.errors.find("dbt compile failed"), std::string::npos) << column.errors;
  EXPECT_NE(column.errors.find("colour"), std::string::npos) << column.errors;  // dbt's own message
  EXPECT_FALSE(relation_exists("fresh"));
  project_->write("models/marts/by_missing_column.sql", "select 1 as one\n");

  // A Jinja syntax error.
  project_->write("models/marts/broken.sql", "select {{ ref('stg_sales') }\n");
  const RunResult syntax = run();
  EXPECT_NE(syntax.code, 0) << syntax.output;
  // dbt's parse (the compile key's first step, the default) refuses it, in dbt's words; and so
  // does the full compile of --compile all.
  EXPECT_NE(syntax.errors.find("dbt parse failed"), std::string::npos) << syntax.errors;
  EXPECT_NE(syntax.errors.find("Compilation Error in model broken"), std::string::npos) << syntax.errors;
  const RunResult syntax_all = run({"--compile", "all"});
  EXPECT_NE(syntax_all.code, 0) << syntax_all.output;
  EXPECT_NE(syntax_all.errors.find("Compilation Error in model broken"), std::string::npos) << syntax_all.errors;
  EXPECT_FALSE(relation_exists("fresh"));

  // Fixed: the run builds the new models and succeeds.
  project_->write("models/marts/broken.sql", "select * from {{ ref('stg_sales') }}\n");
  const RunResult fixed = run();
  EXPECT_EQ(fixed.code, 0) << fixed.output << fixed.errors;
  EXPECT_TRUE(relation_exists("fresh"));
}

}  // namespace
}  // namespace ods::testing
