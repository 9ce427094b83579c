#pragma once
// Progress of a `dbt build` / `run` / `test` / `seed` / `snapshot` / `source freshness`, from
// dbt's JSON log events: which of the N nodes have started and how each one ended.
//
// Events read (dbt-core 1.10; every per-node event carries data.index and data.total,
// except LogTestResult, whose total is data.num_models):
//   ConcurrencyLine    data.node_count: a provisional total (it leaves out unit tests)
//   LogStartLine       node started
//   LogModelResult, LogSeedResult, LogSnapshotResult, LogTestResult, LogFreshnessResult,
//   LogNodeResult, LogNodeNoOpResult                     node finished, data.status
//   SkippingDetails, LogSkipBecauseError                 node skipped (never started)
//   EndOfRunSummary    data.keyboard_interrupt, num_errors, num_warnings, num_partial_success
//   StatsLine          data.stats.{pass,warn,error,skip,noop,total}
//   MainReportVersion  data.version
// The debug-level NodeStart/NodeFinished are not emitted at dbt's default log level and are
// not needed. Hook lines (LogHookStartLine/EndLine) count hooks, not nodes, and are ignored.
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "ods/dbt/cli/dbt_event.h"

namespace ods::dbt {

enum class NodeState { running, succeeded, warned, failed, errored, skipped, no_op };

// "running", "succeeded", "warned", "failed", "errored", "skipped", "no_op".
std::string_view to_string(NodeState state);

struct NodeProgress {
  int index = 0;              // dbt's position "index of total", from 1
  std::string unique_id;      // data.node_info.unique_id; "" when dbt did not give it (LogSkipBecauseError)
  std::string name;           // node_info.node_name, else data.node_name / data.relation / data.name
  std::string resource_type;  // node_info.resource_type or data.resource_type; "" when not given
  std::string status;         // dbt's own word: "success", "OK", "pass", "fail", "warn", "error", "skipped"...
  NodeState state = NodeState::running;
};

struct RunSummary {
  bool seen = false;                // an EndOfRunSummary arrived
  bool keyboard_interrupt = false;  // dbt says it stopped on Ctrl-C
  int num_errors = 0;
  int num_warnings = 0;
  int num_partial_success = 0;
  bool stats_seen = false;  // a StatsLine arrived; its counts follow (total: nodes that ran)
  int pass = 0, warn = 0, error = 0, skip = 0, noop = 0, total = 0;
};

// Not thread-safe; feed it from the thread delivering the events.
class DbtProgress {
 public:
  // Updates the model from one event. Returns true when the node counts, the total or the
  // summary changed; false for events it does not read (and for plain text).
  bool apply(const DbtEvent& event);

  // Nodes dbt will run: data.total of the per-node events; before the first of them, the
  // provisional ConcurrencyLine node_count; 0 while unknown.
  [[nodiscard]] int total() const { return total_ > 0 ? total_ : provisional_total_; }
  // Nodes seen so far (started, or reported finished/skipped without a start).
  [[nodiscard]] int started() const { return static_cast<int>(nodes_.size()); }
  // Nodes with a result, skipped and no-op included.
  [[nodiscard]] int finished() const { return started() - count(NodeState::running); }
  [[nodiscard]] int count(NodeState state) const;
  // Every node seen, by index.
  [[nodiscard]] const std::map<int, NodeProgress>& nodes() const { return nodes_; }
  [[nodiscard]] const RunSummary& summary() const { return summary_; }
  // data.version of MainReportVersion, e.g. "=1.10.15"; "" until seen.
  [[nodiscard]] const std::string& dbt_version() const { return dbt_version_; }

 private:
  bool apply_node_event(const DbtEvent& event, std::optional<NodeState> finished_state);

  int total_ = 0;
  int provisional_total_ = 0;
  std::map<int, NodeProgress> nodes_;
  RunSummary summary_;
  std::string dbt_version_;
};

}  // namespace ods::dbt
