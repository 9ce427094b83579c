#pragma once
// The operator's Prometheus metrics: one registry holding every family the operator exports, and
// a typed API to feed them, so no caller spells a metric or label name. docs/metrics.md documents
// each family (name, type, labels, meaning, an example query).
//
//   ods_probe_latency_seconds{project,source}          histogram  one probe of a source
//   ods_nodes_total{project,action,reason}             counter    nodes planned BUILD / REUSE
//   ods_reuse_ratio{project}                           gauge      reused / all nodes, last run
//   ods_run_duration_seconds{project,outcome}          histogram  a run, start to end
//   ods_runs_total{project,outcome}                    counter    runs that ended
//   ods_unknown_data_versions_total{project}           counter    sources with no data version
//   ods_run_sources{project,exactness}                 gauge      the last run's sources by exactness
//   ods_build_seconds_total{project}                   counter    seconds dbt spent on the nodes it ran
//   ods_build_seconds_saved_total{project}             counter    reused nodes' last build seconds
//   ods_last_successful_run_timestamp_seconds{project} gauge      completion of the last success
//   ods_schedule_period_seconds{project}               gauge      longest gap between schedule ticks
//   ods_leader                                         gauge      1 while this replica leads
//   controller_runtime_reconcile_total{controller,result}
//   controller_runtime_reconcile_errors_total{controller}
//   controller_runtime_reconcile_time_seconds{controller}
//   workqueue_depth{name}, workqueue_adds_total{name}, workqueue_retries_total{name}
//   ods_informer_relists_total{resource}               counter    lists after the first (410 Gone)
//
// Thread safety: every member may be called from several threads at once (prometheus-cpp's
// families and metrics are thread-safe). Label values are free text (escaped when serialised).
#include <prometheus/registry.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace ods::telemetry {

// What the planner decided for a node (the `action` label).
enum class NodeAction { build, reuse };

// How a reconcile ended (the `result` label, as controller-runtime names them).
enum class ReconcileResult { success, error, requeue, requeue_after };

class OperatorMetrics {
 public:
  OperatorMetrics();
  ~OperatorMetrics();
  OperatorMetrics(const OperatorMetrics&) = delete;
  OperatorMetrics& operator=(const OperatorMetrics&) = delete;

  // Every family the operator exports, to serve or to collect from. Lives as long as this.
  std::shared_ptr<prometheus::Collectable> collectable() const { return exported_; }
  // Every family in the Prometheus text exposition format (version 0.0.4).
  std::string scrape_text() const;

  // One probe of `source` (a dbt source's unique id or relation) took `seconds`.
  void observe_probe(std::string_view project, std::string_view source, double seconds);
  // `count` nodes of `project` were planned `action` for `reason` (a reason code, docs/reason-codes.md).
  void count_nodes(std::string_view project, NodeAction action, std::string_view reason, std::uint64_t count = 1);
  // The last run of `project` reused `reused` of `total` nodes (ratio 0 when total is 0).
  void set_reuse_ratio(std::string_view project, std::uint64_t reused, std::uint64_t total);
  // A run of `project` ended with `outcome` ("succeeded", "failed", …) after `seconds`:
  // ods_runs_total and ods_run_duration_seconds.
  void record_run(std::string_view project, std::string_view outcome, double seconds);
  // `count` sources of `project` had no data version in a run (they are built, never reused).
  void count_unknown_data_versions(std::string_view project, std::uint64_t count);
  // The last run of `project` probed `by_exactness` sources per exactness label (exact, semantic,
  // proxy, inferred, unknown: run::kSourceExactnessLabels); a label it lacks is set to 0.
  void set_run_sources(std::string_view project, const std::map<std::string, std::uint64_t>& by_exactness);
  // A recorded run of `project`: dbt spent `spent` seconds on the nodes it ran; the nodes it
  // reused took `saved` seconds when they were last built.
  void count_build_seconds(std::string_view project, double spent, double saved);

  // `project` exists: its counters appear at 0 (runs of both outcomes, nodes of every reason
  // code, build seconds), so that increase() counts its first run. Idempotent.
  void add_project(std::string_view project);
  // `project` is gone: every series labelled with it is removed.
  void remove_project(std::string_view project);
  // The last successful run of `project` completed at `unix_seconds`.
  void set_last_success(std::string_view project, double unix_seconds);
  // `project` runs on a schedule whose ticks are at most `seconds` apart; nullopt: no schedule
  // (unscheduled, suspended or invalid), the series is removed.
  void set_schedule_period(std::string_view project, std::optional<double> seconds);

  // A reconcile of `controller` ("dbtproject", "dbtrun") ended with `result` after `seconds`;
  // an error also counts in controller_runtime_reconcile_errors_total.
  void record_reconcile(std::string_view controller, ReconcileResult result, double seconds);
  // The controller `controller`'s counters appear at 0 (reconciles of each result, errors, and
  // the adds and retries of its work queue, named as the controller).
  void add_controller(std::string_view controller);
  // The work queue `name` holds `depth` items now.
  void set_queue_depth(std::string_view name, std::int64_t depth);
  // An item was added to the work queue `name` (first time or again).
  void count_queue_add(std::string_view name);
  // An item of the work queue `name` was re-added after a failure (with backoff).
  void count_queue_retry(std::string_view name);
  // The informer of `resource` ("dbtruns") listed again `count` more times (its watch got 410
  // Gone or an ERROR event).
  void count_informer_relists(std::string_view resource, std::uint64_t count);

  // Whether this replica holds the leader Lease now.
  void set_leader(bool leader);

  struct Families;  // the prometheus families, defined in the .cc

 private:
  class Exported;  // the registry's families and the per-project counters
  std::shared_ptr<prometheus::Registry> registry_;
  std::unique_ptr<Families> families_;
  std::shared_ptr<prometheus::Collectable> exported_;  // an Exported
};

std::string_view to_string(NodeAction action);
std::string_view to_string(ReconcileResult result);

}  // namespace ods::telemetry
