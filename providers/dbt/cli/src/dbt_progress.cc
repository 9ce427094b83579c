#include "ods/dbt/cli/dbt_progress.h"

#include <algorithm>
#include <optional>

namespace ods::dbt {
namespace {

using nlohmann::json;

int int_field(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_number_integer() ? it->get<int>() : 0;
}

bool bool_field(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_boolean() && it->get<bool>();
}

std::string string_field(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

const json& object_field(const json& object, const char* key) {
  static const json kEmpty = json::object();
  auto it = object.find(key);
  return it != object.end() && it->is_object() ? *it : kEmpty;
}

// How a result event's status word maps to a state. dbt's words differ per event:
// models "success"/"OK"/"error"/"... PARTIAL SUCCESS", tests "pass"/"warn"/"fail"/"error",
// freshness "pass"/"warn"/"error" (stale)/"runtime error".
NodeState state_of_result(std::string_view event_name, std::string_view status) {
  if (status == "error" || status == "runtime error")
    return event_name == "LogFreshnessResult" && status == "error" ? NodeState::failed : NodeState::errored;
  if (status == "fail") return NodeState::failed;
  if (status == "warn" || status.find("PARTIAL SUCCESS") != std::string_view::npos) return NodeState::warned;
  if (status == "skipped") return NodeState::skipped;
  if (status == "no-op" || status == "noop") return NodeState::no_op;
  return NodeState::succeeded;
}

bool is_result_event(const std::string& name) {
  return name == "LogModelResult" || name == "LogSeedResult" || name == "LogSnapshotResult" ||
         name == "LogTestResult" || name == "LogFreshnessResult" || name == "LogNodeResult";
}

}  // namespace

std::string_view to_string(NodeState state) {
  switch (state) {
    case NodeState::running:
      return "running";
    case NodeState::succeeded:
      return "succeeded";
    case NodeState::warned:
      return "warned";
    case NodeState::failed:
      return "failed";
    case NodeState::errored:
      return "errored";
    case NodeState::skipped:
      return "skipped";
    case NodeState::no_op:
      return "no_op";
  }
  return "unknown";
}

int DbtProgress::count(NodeState state) const {
  return static_cast<int>(
      std::count_if(nodes_.begin(), nodes_.end(), [&](const auto& entry) { return entry.second.state == state; }));
}

bool DbtProgress::apply(const DbtEvent& event) {
  if (event.is_plain()) return false;
  const json& data = event.data;
  if (event.name == "MainReportVersion") {
    dbt_version_ = string_field(data, "version");
    return false;
  }
  if (event.name == "ConcurrencyLine") {
    provisional_total_ = int_field(data, "node_count");
    return total_ == 0;
  }
  if (event.name == "EndOfRunSummary") {
    summary_.seen = true;
    summary_.keyboard_interrupt = bool_field(data, "keyboard_interrupt");
    summary_.num_errors = int_field(data, "num_errors");
    summary_.num_warnings = int_field(data, "num_warnings");
    summary_.num_partial_success = int_field(data, "num_partial_success");
    return true;
  }
  if (event.name == "StatsLine") {
    const json& stats = object_field(data, "stats");
    summary_.stats_seen = true;
    summary_.pass = int_field(stats, "pass");
    summary_.warn = int_field(stats, "warn");
    summary_.error = int_field(stats, "error");
    summary_.skip = int_field(stats, "skip");
    summary_.noop = int_field(stats, "noop");
    summary_.total = int_field(stats, "total");
    return true;
  }
  if (event.name == "LogStartLine") return apply_node_event(event, std::nullopt);
  if (event.name == "SkippingDetails" || event.name == "LogSkipBecauseError")
    return apply_node_event(event, NodeState::skipped);
  if (event.name == "LogNodeNoOpResult") return apply_node_event(event, NodeState::no_op);
  if (is_result_event(event.name))
    return apply_node_event(event, state_of_result(event.name, string_field(data, "status")));
  return false;
}

bool DbtProgress::apply_node_event(const DbtEvent& event, std::optional<NodeState> finished_state) {
  const json& data = event.data;
  const int index = int_field(data, "index");
  if (index <= 0) return false;
  const int total = event.name == "LogTestResult" ? int_field(data, "num_models") : int_field(data, "total");
  bool changed = false;
  if (total > 0 && total != total_) {
    total_ = total;
    changed = true;
  }
  auto [it, inserted] = nodes_.try_emplace(index);
  NodeProgress& node = it->second;
  node.index = index;
  const json& info = object_field(data, "node_info");
  if (node.unique_id.empty()) node.unique_id = string_field(info, "unique_id");
  if (node.name.empty()) {
    node.name = string_field(info, "node_name");
    for (const char* key : {"node_name", "relation", "name"})
      if (node.name.empty()) node.name = string_field(data, key);
  }
  if (node.resource_type.empty()) {
    node.resource_type = string_field(info, "resource_type");
    if (node.resource_type.empty()) node.resource_type = string_field(data, "resource_type");
  }
  if (finished_state) {
    node.state = *finished_state;
    node.status = *finished_state == NodeState::skipped && event.name == "SkippingDetails"
                      ? std::string("skipped")
                      : string_field(data, "status");
    changed = true;
  } else if (inserted) {  // a start never reopens a node that already has its result
    node.state = NodeState::running;
    changed = true;
  }
  return changed;
}

}  // namespace ods::dbt
