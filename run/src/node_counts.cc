#include "ods/run/node_counts.h"

namespace ods::run {

NodeResult node_result(std::string_view status) {
  if (status == "success") return NodeResult::built;
  if (status == "skipped") return NodeResult::skipped;
  return NodeResult::failed;
}

NodeCounts count_node_results(const std::map<std::string, std::string>& node_status) {
  NodeCounts counts;
  for (const auto& [id, status] : node_status) {
    switch (node_result(status)) {
      case NodeResult::built:
        ++counts.built;
        break;
      case NodeResult::skipped:
        ++counts.skipped;
        break;
      case NodeResult::failed:
        ++counts.failed;
        break;
    }
  }
  return counts;
}

std::string build_outcome(int exit_code, int built) {
  if (exit_code == 0) return "success";
  return built > 0 ? "partial" : "failed";
}

}  // namespace ods::run
