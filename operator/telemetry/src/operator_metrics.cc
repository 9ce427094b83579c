#include "ods/telemetry/operator_metrics.h"

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/text_serializer.h>

#include <type_traits>

#include "ods/planner/reason_catalog.h"
#include "ods/run/run_metrics.h"
#include "project_counters.h"

namespace ods::telemetry {

namespace {

using prometheus::Counter;
using prometheus::Gauge;
using prometheus::Histogram;
using prometheus::Labels;

// One probe: a query of a catalog or a content fingerprint, milliseconds to a minute.
const Histogram::BucketBoundaries kProbeBuckets{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
// One run: dbt start-up alone costs seconds; large projects take hours.
const Histogram::BucketBoundaries kRunBuckets(std::begin(run::kRunDurationBuckets), std::end(run::kRunDurationBuckets));
// controller-runtime's buckets for controller_runtime_reconcile_time_seconds.
const Histogram::BucketBoundaries kReconcileBuckets{
    0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5,
    1.75,  2.0,  2.5,   3.0,  3.5, 4.0,  4.5, 5,    6,   7,    8,   9,    10,  15,  20,  25,  30,  40,  50,   60};

std::string str(std::string_view s) { return std::string(s); }

// The run metrics' names and help, shared with `ods state run|test --metrics-file` (run_metrics.h).
const std::string kNodes(run::kMetricNodes.name), kNodesHelp(run::kMetricNodes.help);
const std::string kRuns(run::kMetricRuns.name), kRunsHelp(run::kMetricRuns.help);
const std::string kUnknown(run::kMetricUnknownDataVersions.name), kUnknownHelp(run::kMetricUnknownDataVersions.help);
const std::string kBuildSeconds(run::kMetricBuildSeconds.name), kBuildSecondsHelp(run::kMetricBuildSeconds.help);
const std::string kSaved(run::kMetricBuildSecondsSaved.name), kSavedHelp(run::kMetricBuildSecondsSaved.help);

// The counters add_project() makes appear at 0: runs of both outcomes, nodes of every reason code a
// plan entry can start with (planner::kReasonCodes), unknown data versions, build seconds spent and saved.
std::vector<ProjectCounters::Slot> project_slots() {
  std::vector<ProjectCounters::Slot> slots;
  for (auto outcome : {run::kOutcomeSucceeded, run::kOutcomeFailed})
    slots.push_back({kRuns, kRunsHelp, {{"outcome", str(outcome)}}});
  for (const auto& reason : planner::kReasonCodes) {
    if (auto action = planner::first_reason_action(reason))
      slots.push_back(
          {kNodes, kNodesHelp, {{"action", str(planner::to_string(*action))}, {"reason", str(reason.code)}}});
  }
  for (auto [name, help] :
       {std::pair{&kUnknown, &kUnknownHelp}, {&kBuildSeconds, &kBuildSecondsHelp}, {&kSaved, &kSavedHelp}})
    slots.push_back({*name, *help, {}});
  return slots;
}

}  // namespace

struct OperatorMetrics::Families {
  explicit Families(prometheus::Registry& r)
      : probe_latency(prometheus::BuildHistogram()
                          .Name("ods_probe_latency_seconds")
                          .Help("Time one probe of a source took (catalog query or content fingerprint).")
                          .Register(r)),
        nodes(prometheus::BuildCounter().Name(kNodes).Help(kNodesHelp).Register(r)),
        reuse_ratio(prometheus::BuildGauge()
                        .Name(str(run::kMetricReuseRatio.name))
                        .Help(str(run::kMetricReuseRatio.help))
                        .Register(r)),
        run_duration(prometheus::BuildHistogram()
                         .Name(str(run::kMetricRunDuration.name))
                         .Help(str(run::kMetricRunDuration.help))
                         .Register(r)),
        runs(prometheus::BuildCounter().Name(kRuns).Help(kRunsHelp).Register(r)),
        run_sources(prometheus::BuildGauge()
                        .Name(str(run::kMetricRunSources.name))
                        .Help(str(run::kMetricRunSources.help))
                        .Register(r)),
        last_success(prometheus::BuildGauge()
                         .Name(str(run::kMetricLastSuccess.name))
                         .Help(str(run::kMetricLastSuccess.help))
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
                             .Register(r)),
        project_counters(project_slots()) {}

  prometheus::Family<Histogram>& probe_latency;
  prometheus::Family<Counter>& nodes;
  prometheus::Family<Gauge>& reuse_ratio;
  prometheus::Family<Histogram>& run_duration;
  prometheus::Family<Counter>& runs;  // outcomes other than succeeded and failed
  prometheus::Family<Gauge>& run_sources;
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
  // Per project: ods_runs_total{outcome=succeeded|failed}, ods_nodes_total of the catalog's
  // reasons, ods_unknown_data_versions_total, ods_build_seconds_total, ods_build_seconds_saved_total.
  ProjectCounters project_counters;
};

// The registry's families with the project counters merged in: what a scrape exports.
class OperatorMetrics::Exported final : public prometheus::Collectable {
 public:
  Exported(const prometheus::Registry& registry, const Families& families) : registry_(registry), families_(families) {}
  std::vector<prometheus::MetricFamily> Collect() const override {
    auto collected = registry_.Collect();
    families_.project_counters.collect_into(collected);
    return collected;
  }

 private:
  const prometheus::Registry& registry_;
  const Families& families_;
};

OperatorMetrics::OperatorMetrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      families_(std::make_unique<Families>(*registry_)),
      exported_(std::make_shared<Exported>(*registry_, *families_)) {
  families_->leader.Set(0);
}

OperatorMetrics::~OperatorMetrics() = default;

std::string OperatorMetrics::scrape_text() const {
  return prometheus::TextSerializer().Serialize(exported_->Collect());
}

void OperatorMetrics::observe_probe(std::string_view project, std::string_view source, double seconds) {
  families_->probe_latency.Add({{"project", str(project)}, {"source", str(source)}}, kProbeBuckets).Observe(seconds);
}

void OperatorMetrics::count_nodes(std::string_view project, NodeAction action, std::string_view reason,
                                  std::uint64_t count) {
  const Labels labels{{"action", str(to_string(action))}, {"reason", str(reason)}};
  if (auto slot = families_->project_counters.find(kNodes, labels)) {
    families_->project_counters.increment(str(project), *slot, static_cast<double>(count));
    return;
  }
  Labels with_project = labels;
  with_project["project"] = str(project);
  families_->nodes.Add(with_project).Increment(static_cast<double>(count));
}

void OperatorMetrics::set_reuse_ratio(std::string_view project, std::uint64_t reused, std::uint64_t total) {
  const double ratio = total == 0 ? 0.0 : static_cast<double>(reused) / static_cast<double>(total);
  families_->reuse_ratio.Add({{"project", str(project)}}).Set(ratio);
}

void OperatorMetrics::record_run(std::string_view project, std::string_view outcome, double seconds) {
  const Labels labels{{"project", str(project)}, {"outcome", str(outcome)}};
  if (auto slot = families_->project_counters.find(kRuns, {{"outcome", str(outcome)}}))
    families_->project_counters.increment(str(project), *slot, 1);
  else
    families_->runs.Add(labels).Increment();
  families_->run_duration.Add(labels, kRunBuckets).Observe(seconds);
}

void OperatorMetrics::count_unknown_data_versions(std::string_view project, std::uint64_t count) {
  ProjectCounters& counters = families_->project_counters;
  counters.increment(str(project), *counters.find(kUnknown, {}), static_cast<double>(count));
}

void OperatorMetrics::set_run_sources(std::string_view project,
                                      const std::map<std::string, std::uint64_t>& by_exactness) {
  std::map<std::string, std::uint64_t> all = by_exactness;
  for (std::string_view label : run::kSourceExactnessLabels) all.try_emplace(str(label), 0);
  for (const auto& [exactness, n] : all)
    families_->run_sources.Add({{"project", str(project)}, {"exactness", exactness}}).Set(static_cast<double>(n));
}

void OperatorMetrics::count_build_seconds(std::string_view project, double spent, double saved) {
  ProjectCounters& counters = families_->project_counters;
  counters.increment(str(project), *counters.find(kBuildSeconds, {}), spent);
  counters.increment(str(project), *counters.find(kSaved, {}), saved);
}

void OperatorMetrics::add_project(std::string_view project) { families_->project_counters.add_project(str(project)); }

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
  for (auto* counters : {&f.nodes, &f.runs}) remove_labelled(*counters, p);
  f.project_counters.remove_project(p);
  for (auto* gauges : {&f.reuse_ratio, &f.run_sources, &f.last_success, &f.schedule_period})
    remove_labelled(*gauges, p);
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
