#pragma once
// The planner's output: an ExecutionPlan whose every entry carries an action, stable
// reason codes with sentences, and the evidence behind them (rule 3: explainable).
#include <string>
#include <vector>

#include "ods/planner/evidence.h"

namespace ods::planner {

enum class Action { build, reuse };
std::string_view to_string(Action a);

// A stable reason code (docs/reason-codes.md lists every one) and a sentence for a person.
struct Reason {
  std::string code;
  std::string message;
};

struct PlanEntry {
  std::string id;
  std::string name;
  std::string resource_type;
  Action action = Action::build;
  std::vector<Reason> reasons;
  std::vector<Evidence> evidence;
  int depth = 0;  // DAG depth: 0 for nodes that read only sources or nothing
};

struct ExecutionPlan {
  std::string scope;               // "<project>/<environment>"
  std::vector<PlanEntry> entries;  // ordered by depth, then id
  std::string select;              // dbt selection for the BUILD set ("" when nothing builds)
  std::vector<std::string> warnings;
  int count(Action a) const;
};

}  // namespace ods::planner
