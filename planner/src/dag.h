#pragma once
// Internal: DAG order of the project's nodes (edges node -> node parents only).
#include <string>
#include <unordered_map>
#include <vector>

#include "ods/base/result.h"
#include "ods/planner/inputs.h"

namespace ods::planner::internal {

struct DagOrder {
  std::vector<std::size_t> order;                         // indexes into inputs.nodes, parents first
  std::vector<int> depth;                                 // by node index
  std::unordered_map<std::string, std::size_t> index_of;  // node id -> index
};

// Errors: "invalid_inputs" for a duplicate node id; "cycle" naming the nodes in a cycle.
Result<DagOrder> dag_order(const ProjectInputs& inputs);

}  // namespace ods::planner::internal
