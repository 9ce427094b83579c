#pragma once
// How sure the plan's source evidence is, in one sentence for the plan table and the Markdown
// summary: each source a plan entry read, counted once by the exactness of the version chosen
// for it (its `version_strategy` evidence; none: unknown). E.g. "Source evidence: 2 exact, 1
// semantic, 1 unknown." Empty when no entry read a source.
#include <string>

#include "ods/planner/plan.h"

namespace ods::cli {

std::string source_evidence_line(const planner::ExecutionPlan& plan);

}  // namespace ods::cli
