// Reading a failed dbt compile (compile_failure.h): which node failed, and whether its error
// names an upstream relation that doesn't exist yet.
#include "ods/dbt/compile_failure.h"

#include <gtest/gtest.h>

namespace ods::dbt {
namespace {

// dbt 1.10's text for a run_query over a ref not built yet (DuckDB), as DbtCommandResult's
// error_text holds it: MainEncounteredError's msg.
constexpr const char* kDuckdbMissing =
    "Encountered an error:\n"
    "Runtime Error\n"
    "  Runtime Error in model pivot (models/pivot.sql)\n"
    "    Catalog Error: Table with name stg does not exist!\n"
    "    Did you mean \"pg_catalog.pg_settings\"?\n"
    "    \n"
    "    LINE 3:     select distinct kind from \"pivots\".\"main\".\"stg\" order by 1\n"
    "                                          ^^^^^^^^^^^^^^^^^^^^^\n";

planner::NodeInput node(std::string name, std::vector<std::string> parents) {
  planner::NodeInput n;
  n.id = "model.pivots." + name;
  n.name = name;
  n.resource_type = "model";
  n.relation = "\"pivots\".\"main\".\"" + name + "\"";
  n.parents = std::move(parents);
  return n;
}

planner::ProjectInputs pivots() {
  planner::ProjectInputs in;
  in.nodes = {node("stg_base", {"source.pivots.raw.kinds"}), node("stg", {"model.pivots.stg_base"}),
              node("pivot", {"model.pivots.stg"}), node("other", {}), node("stg_basement", {})};
  return in;
}

TEST(CompileFailures, NamesTheNodeAndKeepsItsIndentedMessage) {
  const auto failures = compile_failures(kDuckdbMissing);
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].resource_type, "model");
  EXPECT_EQ(failures[0].name, "pivot");
  EXPECT_EQ(failures[0].path, "models/pivot.sql");
  EXPECT_NE(failures[0].message.find("Table with name stg does not exist"), std::string::npos);
  EXPECT_NE(failures[0].message.find("LINE 3"), std::string::npos);
  EXPECT_EQ(failures[0].message.find("Encountered an error"), std::string::npos);
}

TEST(CompileFailures, ReadsCompilationErrorsOfPackagesAndEachNodeOnce) {
  const std::string text =
      "Compilation Error in model pivot_by_kind (models/marts/pivot_by_kind.sql)\n"
      "  In get_column_values(): relation \"db\".\"main\".\"stg\" does not exist and no default value was provided.\n"
      "  \n"
      "  > in macro get_column_values (macros/sql/get_column_values.sql)\n"
      "Compilation Error in model pivot_by_kind (models/marts/pivot_by_kind.sql)\n"
      "  again\n";
  const auto failures = compile_failures(text);
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].name, "pivot_by_kind");
  EXPECT_NE(failures[0].message.find("get_column_values"), std::string::npos);
}

TEST(CompileFailures, NoneInAParseErrorOrAnEmptyText) {
  EXPECT_TRUE(compile_failures("").empty());
  EXPECT_TRUE(
      compile_failures("Encountered an error:\nParsing Error\n  Error reading pivots: models/x.yml - bad\n").empty());
  EXPECT_TRUE(compile_failures("Compilation Error\n  unexpected '}' in models/pivot.sql\n").empty());
}

TEST(MissingUpstreamNamed, TheParentTheErrorNamesWhenItsRelationIsMissing) {
  const auto failures = compile_failures(kDuckdbMissing);
  ASSERT_EQ(failures.size(), 1u);
  const std::map<std::string, bool> missing{{"model.pivots.stg", false}, {"model.pivots.stg_base", false}};
  EXPECT_EQ(missing_upstream_named(pivots(), "model.pivots.pivot", failures[0].message, missing), "stg");
}

TEST(MissingUpstreamNamed, AnAncestorByItsQuotedRelationOnAnotherAdapter) {
  const std::string postgres =
      "Database Error in model pivot (models/pivot.sql)\n  relation \"main.stg_base\" does not exist\n";
  const std::map<std::string, bool> exist{{"model.pivots.stg", true}, {"model.pivots.stg_base", false}};
  EXPECT_EQ(missing_upstream_named(pivots(), "model.pivots.pivot", postgres, exist), "stg_base");
}

TEST(MissingUpstreamNamed, NothingWhenTheNamedRelationExistsIsUncheckedOrIsNoAncestor) {
  const std::string message = compile_failures(kDuckdbMissing)[0].message;
  // stg exists: a genuine error about it (a column, a type), not a missing relation
  EXPECT_FALSE(missing_upstream_named(pivots(), "model.pivots.pivot", message, {{"model.pivots.stg", true}}));
  // existence unknown (the probe failed): never counts
  EXPECT_FALSE(missing_upstream_named(pivots(), "model.pivots.pivot", message, {}));
  // a missing relation that is no ancestor of the failing node
  EXPECT_FALSE(missing_upstream_named(pivots(), "model.pivots.other", message, {{"model.pivots.stg", false}}));
  // an ancestor missing but not named ("stg_base" is not the word "stg", nor the reverse)
  EXPECT_FALSE(missing_upstream_named(pivots(), "model.pivots.pivot", "Syntax Error: near stg_basement",
                                      {{"model.pivots.stg_base", false}, {"model.pivots.stg", true}}));
  // an unknown node
  EXPECT_FALSE(missing_upstream_named(pivots(), "model.pivots.nope", message, {{"model.pivots.stg", false}}));
}

}  // namespace
}  // namespace ods::dbt
