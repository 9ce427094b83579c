// The reason code table (ods/planner/reason_catalog.h) and its reference, docs/reason-codes.md,
// list the same codes: a code added to one and not the other fails here, as does a plan code
// whose action or rule differ between them.
#include "ods/planner/reason_catalog.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "harness/source_paths.h"
#include "ods/planner/planner.h"

namespace ods::planner {
namespace {

struct DocRow {
  std::string action, rule;
};

struct DocTables {
  std::map<std::string, DocRow> plan;  // the first table: code -> action, rule
  std::set<std::string> check;         // "Check plans": its codes
};

// The cells of a Markdown table row ("| a | b |" -> {"a", "b"}), trimmed.
std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line.substr(1));
  for (std::string cell; std::getline(in, cell, '|');) {
    const auto first = cell.find_first_not_of(' ');
    const auto last = cell.find_last_not_of(' ');
    out.push_back(first == std::string::npos ? "" : cell.substr(first, last - first + 1));
  }
  return out;
}

DocTables read_doc() {
  std::ifstream in(ods::testing::source_dir() / "docs/reason-codes.md");
  EXPECT_TRUE(in) << "docs/reason-codes.md";
  DocTables doc;
  bool in_checks = false;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("## ")) in_checks = line.starts_with("## Check plans");
    if (!line.starts_with("| `")) continue;
    const auto row = cells(line);
    const std::string code = row.at(0).substr(1, row.at(0).size() - 2);  // `code`
    if (in_checks)
      doc.check.insert(code);
    else
      doc.plan[code] = {row.at(1), row.at(2)};
  }
  return doc;
}

TEST(ReasonCatalog, TheDocListsExactlyTheTablesCodes) {
  const DocTables doc = read_doc();
  std::set<std::string> documented(doc.check.begin(), doc.check.end());
  for (const auto& [code, row] : doc.plan) documented.insert(code);
  std::set<std::string> tabled;
  for (const ReasonCode& r : kReasonCodes) tabled.insert(std::string(r.code));
  for (const auto& code : tabled)
    EXPECT_TRUE(documented.contains(code)) << "docs/reason-codes.md has no row for `" << code
                                           << "`, which kReasonCodes (ods/planner/reason_catalog.h) has";
  for (const auto& code : documented)
    EXPECT_TRUE(tabled.contains(code)) << "docs/reason-codes.md has a row for `" << code
                                       << "`, which kReasonCodes (ods/planner/reason_catalog.h) lacks";
}

TEST(ReasonCatalog, PlanCodesHaveTheDocsActionAndRule) {
  const DocTables doc = read_doc();
  for (const ReasonCode& r : kReasonCodes) {
    const auto row = doc.plan.find(std::string(r.code));
    if (r.action == ReasonAction::check_run) {
      EXPECT_EQ(row, doc.plan.end()) << r.code << " is a check plan's code, documented in the plan table";
      EXPECT_TRUE(doc.check.contains(std::string(r.code))) << r.code << " is not in the check plan table";
      continue;
    }
    if (row == doc.plan.end()) continue;  // reported by TheDocListsExactlyTheTablesCodes
    const bool builds = r.action == ReasonAction::build_for_code || r.action == ReasonAction::build_for_data;
    EXPECT_EQ(row->second.action, builds ? "build" : "reuse") << r.code;
    EXPECT_EQ(row->second.rule, r.rule) << r.code;
  }
}

TEST(ReasonCatalog, FirstReasonsAndBuildsForCodeFollowTheTable) {
  int build = 0, reuse = 0;
  for (const ReasonCode& r : kReasonCodes) {
    const auto action = first_reason_action(r);
    if (action == Action::build) ++build;
    if (action == Action::reuse) ++reuse;
    PlanEntry e;
    e.action = action.value_or(Action::build);
    e.reasons.push_back({std::string(r.code), "why"});
    EXPECT_EQ(built_for_code(e), r.action == ReasonAction::build_for_code) << r.code;
  }
  EXPECT_EQ(build, 17);  // the operator's ods_nodes_total{action="build"} series
  EXPECT_EQ(reuse, 4);   // and {action="reuse"}: formatting_only and cheaper_evidence never come first
  EXPECT_EQ(find_reason_code("no_such_code"), nullptr);
}

}  // namespace
}  // namespace ods::planner
