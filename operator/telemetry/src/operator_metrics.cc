#include "ods/telemetry/operator_metrics.h"

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/text_serializer.h>

#include <type_traits>

#include "ods/planner/reason_catalog.h"

namespace ods::telemetry {

namespace {

using prometheus::Counter;
using prometheus::Gauge;
using prometheus::Histogram;
using prometheus::Labels;

// One probe: a query of a catalog or a content fingerprint, milliseconds to a minute.
const Histogram::BucketBoundaries kProbeBuckets{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
// One run: dbt start-up alone costs seconds; large projects take hours.
const Histogram::BucketBoundaries kRunBuckets{1, 5, 10, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200, 14400};
// controller-runtime's buckets for controller_runtime_reconcile_time_seconds.
const Histogram::BucketBoundaries kReconcileBuckets{
    0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5,
    1.75,  2.0,  2.5,   3.0,  3.5, 4.0,  4.5, 5,    6,   7,    8,   9,    10,  15,  20,  25,  30,  40,  50,   60};

std::string str(std::string_view s) { return std::string(s); }

}  // namespace

struct OperatorMetrics::Families {
  explicit Families(prometheus::Registry& r)
      : probe_latency(prometheus::BuildHistogram()
                          .Name("ods_probe_latency_seconds")
                          .Help("Time one probe of a source took (catalog query or content fingerprint).")
                          .Register(r)),
        nodes(prometheus::BuildCounter()
                  .Name("ods_nodes_total")
                  .Help("Nodes the planner decided to build or reuse, by reason code.")
                  .Register(r)),
        reuse_ratio(prometheus::BuildGauge()
                        .Name("ods_reuse_ratio")
                        .Help("Share of the nodes the last run of a project reused (0 to 1).")
                        .Register(r)),
        run_duration(prometheus::BuildHistogram()
                         .Name("ods_run_duration_seconds")
                         .Help("Duration of a run from its start to its end, by outcome.")
                         .Register(r)),
        runs(prometheus::BuildCounter().Name("ods_runs_total").Help("Runs that ended, by outcome.").Register(r)),
        unknown_data_versions(prometheus::BuildCounter()
                                  .Name("ods_unknown_data_versions_total")
                                  .Help("Sources probed without a data version (their readers are built).")
                                  .Register(r)),
        build_seconds(prometheus::BuildCounter()
                          .Name("ods_build_seconds_total")
                          .Help("Seconds dbt spent building the nodes of recorded runs (the nodes' own times, summed).")
                          .Register(r)),
        build_seconds_saved(prometheus::BuildCounter()
                                .Name("ods_build_seconds_saved_total")
                                .Help("Last recorded build seconds of the nodes recorded runs reused.")
                                .Register(r)),
        last_success(prometheus::BuildGauge()
                         .Name("ods_last_successful_run_timestamp_seconds")
                         .Help("Completion time (Unix seconds) of the last successful run of a project.")
                         .Register(r)),
        schedule_period(prometheus::BuildGauge()
                            .Name("ods_schedule_period_seconds")
                            .Help("Longest gap between the next ticks of a scheduled project's schedule.")
                            .Register(r)),
        leader(prometheus::BuildGauge()
                   .Name("ods_leader")
                   .Help("1 while this replica holds the leader Lease, else 0.")
                   .Register(r)
                   .Add({})),
        reconciles(prometheus::BuildCounter()
                       .Name("controller_runtime_reconcile_total")
                       .Help("Total number of reconciliations per controller.")
                       .Register(r)),
        reconcile_errors(prometheus::BuildCounter()
                             .Name("controller_runtime_reconcile_errors_total")
                             .Help("Total number of reconciliation errors per controller.")
                             .Register(r)),
        reconcile_time(prometheus::BuildHistogram()
                           .Name("controller_runtime_reconcile_time_seconds")
                           .Help("Length of time per reconciliation per controller.")
                           .Register(r)),
        queue_depth(prometheus::BuildGauge().Name("workqueue_depth").Help("Current depth of workqueue.").Register(r)),
        queue_adds(prometheus::BuildCounter()
                       .Name("workqueue_adds_total")
                       .Help("Total number of adds handled by workqueue.")
                       .Register(r)),
        queue_retries(prometheus::BuildCounter()
                          .Name("workqueue_retries_total")
                          .Help("Total number of retries handled by workqueue.")
                          .Register(r)),
        informer_relists(prometheus::BuildCounter()
                             .Name("ods_informer_relists_total")
                             .Help("Lists after the first per watched resource (410 Gone or an ERROR event).")
                             .Register(r)) {}

  prometheus::Family<Histogram>& probe_latency;
  prometheus::Family<Counter>& nodes;
  prometheus::Family<Gauge>& reuse_ratio;
  prometheus::Family<Histogram>& run_duration;
  prometheus::Family<Counter>& runs;
  prometheus::Family<Counter>& unknown_data_versions;
  prometheus::Family<Counter>& build_seconds;
  prometheus::Family<Counter>& build_seconds_saved;
  prometheus::Family<Gauge>& last_success;
  prometheus::Family<Gauge>& schedule_period;
  Gauge& leader;
  prometheus::Family<Counter>& reconciles;
  prometheus::Family<Counter>& reconcile_errors;
  prometheus::Family<Histogram>& reconcile_time;
  prometheus::Family<Gauge>& queue_depth;
  prometheus::Family<Counter>& queue_adds;
  prometheus::Family<Counter>& queue_retries;
  prometheus::Family<Counter>& informer_relists;
};

OperatorMetrics::OperatorMetrics()
    : registry_(std::make_shared<prometheus::Registry>()), families_(std::make_unique<Families>(*registry_)) {
  families_->leader.Set(0);
}

OperatorMetrics::~OperatorMetrics() = default;

std::string OperatorMetrics::scrape_text() const {
  return prometheus::TextSerializer().Serialize(registry_->Collect());
}

void OperatorMetrics::observe_probe(std::string_view project, std::string_view source, double seconds) {
  families_->probe_latency.Add({{"project", str(project)}, {"source", str(source)}}, kProbeBuckets).Observe(seconds);
}

void OperatorMetrics::count_nodes(std::string_view project, NodeAction action, std::string_view reason,
                                  std::uint64_t count) {
  families_->nodes.Add({{"project", str(project)}, {"action", str(to_string(action))}, {"reason", str(reason)}})
      .Increment(static_cast<double>(count));
}

void OperatorMetrics::set_reuse_ratio(std::string_view project, std::uint64_t reused, std::uint64_t total) {
  const double ratio = total == 0 ? 0.0 : static_cast<double>(reused) / static_cast<double>(total);
  families_->reuse_ratio.Add({{"project", str(project)}}).Set(ratio);
}

void OperatorMetrics::record_run(std::string_view project, std::string_view outcome, double seconds) {
  const Labels labels{{"project", str(project)}, {"outcome", str(outcome)}};
  families_->runs.Add(labels).Increment();
  families_->run_duration.Add(labels, kRunBuckets).Observe(seconds);
}

void OperatorMetrics::count_unknown_data_versions(std::string_view project, std::uint64_t count) {
  families_->unknown_data_versions.Add({{"project", str(project)}}).Increment(static_cast<double>(count));
}

void OperatorMetrics::count_build_seconds(std::string_view project, double spent, double saved) {
  families_->build_seconds.Add({{"project", str(project)}}).Increment(spent);
  families_->build_seconds_saved.Add({{"project", str(project)}}).Increment(saved);
}

void OperatorMetrics::add_project(std::string_view project) {
  const std::string p = str(project);
  for (const char* outcome : {"succeeded", "failed"}) families_->runs.Add({{"project", p}, {"outcome", outcome}});
  for (auto reason : planner::build_reason_codes())
    families_->nodes.Add({{"project", p}, {"action", "build"}, {"reason", str(reason)}});
  for (auto reason : planner::reuse_reason_codes())
    families_->nodes.Add({{"project", p}, {"action", "reuse"}, {"reason", str(reason)}});
  families_->unknown_data_versions.Add({{"project", p}});
  families_->build_seconds.Add({{"project", p}});
  families_->build_seconds_saved.Add({{"project", p}});
}

namespace {

// Removes every metric of `family` whose `project` label is `project`.
template <typename T>
void remove_labelled(prometheus::Family<T>& family, const std::string& project) {
  for (const auto& collected : family.Collect()) {
    for (const auto& metric : collected.metric) {
      Labels labels;
      for (const auto& label : metric.label) labels[label.name] = label.value;
      if (labels["project"] != project) continue;
      if constexpr (std::is_same_v<T, Histogram>) {
        family.Remove(&family.Add(labels, Histogram::BucketBoundaries{}));
      } else {
        family.Remove(&family.Add(labels));
      }
    }
  }
}

}  // namespace

void OperatorMetrics::remove_project(std::string_view project) {
  const std::string p = str(project);
  Families& f = *families_;
  remove_labelled(f.probe_latency, p);
  remove_labelled(f.run_duration, p);
  for (auto* counters : {&f.nodes, &f.runs, &f.unknown_data_versions, &f.build_seconds, &f.build_seconds_saved})
    remove_labelled(*counters, p);
  for (auto* gauges : {&f.reuse_ratio, &f.last_success, &f.schedule_period}) remove_labelled(*gauges, p);
}

void OperatorMetrics::set_last_success(std::string_view project, double unix_seconds) {
  families_->last_success.Add({{"project", str(project)}}).Set(unix_seconds);
}

void OperatorMetrics::set_schedule_period(std::string_view project, std::optional<double> seconds) {
  const Labels labels{{"project", str(project)}};
  if (seconds) {
    families_->schedule_period.Add(labels).Set(*seconds);
  } else if (families_->schedule_period.Has(labels)) {
    families_->schedule_period.Remove(&families_->schedule_period.Add(labels));
  }
}

void OperatorMetrics::add_controller(std::string_view controller) {
  for (auto result :
       {ReconcileResult::success, ReconcileResult::error, ReconcileResult::requeue, ReconcileResult::requeue_after}) {
    families_->reconciles.Add({{"controller", str(controller)}, {"result", str(to_string(result))}});
  }
  families_->reconcile_errors.Add({{"controller", str(controller)}});
  families_->queue_adds.Add({{"name", str(controller)}});
  families_->queue_retries.Add({{"name", str(controller)}});
}

void OperatorMetrics::record_reconcile(std::string_view controller, ReconcileResult result, double seconds) {
  families_->reconciles.Add({{"controller", str(controller)}, {"result", str(to_string(result))}}).Increment();
  if (result == ReconcileResult::error) families_->reconcile_errors.Add({{"controller", str(controller)}}).Increment();
  families_->reconcile_time.Add({{"controller", str(controller)}}, kReconcileBuckets).Observe(seconds);
}

void OperatorMetrics::set_queue_depth(std::string_view name, std::int64_t depth) {
  families_->queue_depth.Add({{"name", str(name)}}).Set(static_cast<double>(depth));
}

void OperatorMetrics::count_queue_add(std::string_view name) {
  families_->queue_adds.Add({{"name", str(name)}}).Increment();
}

void OperatorMetrics::count_informer_relists(std::string_view resource, std::uint64_t count) {
  families_->informer_relists.Add({{"resource", str(resource)}}).Increment(static_cast<double>(count));
}

void OperatorMetrics::count_queue_retry(std::string_view name) {
  families_->queue_retries.Add({{"name", str(name)}}).Increment();
}

void OperatorMetrics::set_leader(bool leader) { families_->leader.Set(leader ? 1 : 0); }

std::string_view to_string(NodeAction action) { return action == NodeAction::build ? "build" : "reuse"; }

std::string_view to_string(ReconcileResult result) {
  switch (result) {
    case ReconcileResult::success:
      return "success";
    case ReconcileResult::error:
      return "error";
    case ReconcileResult::requeue:
      return "requeue";
    case ReconcileResult::requeue_after:
      return "requeue_after";
  }
  return "unknown";
}

}  // namespace ods::telemetry
