#pragma once
// What dbt did with a build's nodes, from the status it reported for each (run_results.json's
// `status`), decided once for `ods state run` and for the controller's record of an `ods pod`
// run and of its waves: "success" is built, "skipped" is skipped, any other status ("error",
// "fail", "runtime error", ...) is failed. Pure.
#include <map>
#include <string>
#include <string_view>

namespace ods::run {

enum class NodeResult { built, skipped, failed };

// The result a node with dbt `status` came to.
NodeResult node_result(std::string_view status);

struct NodeCounts {
  int built = 0, skipped = 0, failed = 0;
};

// The nodes of `node_status` (node id -> dbt status) counted by node_result.
NodeCounts count_node_results(const std::map<std::string, std::string>& node_status);

// A build's outcome: "success" when dbt exited 0, else "partial" when the run built some node
// (`built`, counted over the whole run), else "failed".
std::string build_outcome(int exit_code, int built);

}  // namespace ods::run
