#pragma once
// How a plan reads in a terminal: grouped by action, a reason on each line, totals at the end.
#include <iosfwd>
#include <string>
#include <string_view>

#include "ods/base/result.h"
#include "ods/planner/checks.h"
#include "ods/planner/plan.h"

namespace ods::cli {

// `notice`: one sentence printed under the header line (what the plan cannot see), "" for none.
void print_plan_table(std::ostream& out, const planner::ExecutionPlan& plan, const std::string& notice = "");
// The same table from the plan's JSON document (`ods state plan --format json`, what a runner
// pod receives from the controller): planner::plan_from_json, then print_plan_table. Errors:
// "corrupt" (the document is not a plan, naming the field); nothing is printed then.
[[nodiscard]] Result<void> print_plan_table_json(std::ostream& out, std::string_view plan_json);
// One entry in full: every reason and every piece of evidence.
void print_entry_detail(std::ostream& out, const planner::PlanEntry& entry);
// A check plan (`ods state test`) the same way: RUN and SKIP groups, then totals.
void print_check_table(std::ostream& out, const planner::CheckPlan& plan);

}  // namespace ods::cli
