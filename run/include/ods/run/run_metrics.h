#pragma once
// The run metrics under one set of names, for every delivery (docs/metrics.md): the operator's
// registry (operator/telemetry) and an `ods state run|test` (--metrics-file, --pushgateway) take
// the names, help texts and the run duration's buckets from here.
//
// For `ods`, RunMetrics is a scope's cumulative totals: each ledger entry `ods state run|test`
// writes carries them (RunDetails::metrics), the newest plus this run's, so what a CI job writes
// or pushes keeps counting across jobs and machines as a Prometheus counter must (a Pushgateway
// keeps only the last push). Label `project` is the scope ("shop/prod").
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ods/contracts/state_store.h"
#include "ods/planner/inputs.h"
#include "ods/planner/plan.h"

namespace ods::run {

struct MetricName {
  std::string_view name;  // a counter's with its _total suffix, as Prometheus shows it
  std::string_view help;
};

inline constexpr MetricName kMetricRuns{"ods_runs_total", "Runs that ended, by outcome."};
inline constexpr MetricName kMetricRunDuration{"ods_run_duration_seconds",
                                               "Duration of a run from its start to its end, by outcome."};
inline constexpr MetricName kMetricNodes{"ods_nodes_total",
                                         "Nodes the planner decided to build or reuse, by reason code."};
inline constexpr MetricName kMetricReuseRatio{"ods_reuse_ratio",
                                              "Share of the nodes the last run of a project reused (0 to 1)."};
inline constexpr MetricName kMetricUnknownDataVersions{
    "ods_unknown_data_versions_total", "Sources probed without a data version (their readers are built)."};
inline constexpr MetricName kMetricBuildSeconds{
    "ods_build_seconds_total", "Seconds dbt spent building the nodes of recorded runs (the nodes' own times, summed)."};
inline constexpr MetricName kMetricBuildSecondsSaved{"ods_build_seconds_saved_total",
                                                     "Last recorded build seconds of the nodes recorded runs reused."};
inline constexpr MetricName kMetricRunSources{
    "ods_run_sources",
    "Sources the last run of a project probed, by the exactness of the data version chosen for each "
    "(unknown: none, so their readers are built)."};
inline constexpr MetricName kMetricLastSuccess{
    "ods_last_successful_run_timestamp_seconds",
    "Completion time (Unix seconds) of the last successful run of a project."};

// ods_run_duration_seconds's upper bounds: dbt's start-up alone costs seconds; large projects take hours.
inline constexpr double kRunDurationBuckets[] = {1, 5, 10, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200, 14400};
inline constexpr std::size_t kRunDurationBucketCount = std::size(kRunDurationBuckets);

// The exactness label of ods_run_sources: a source's chosen data version's exactness
// (planner::to_string), "unknown" when it has none. Every value is written, at 0 when none.
inline constexpr std::string_view kSourceExactnessLabels[] = {"exact", "semantic", "proxy", "inferred", "unknown"};

// The outcome label of a run: "succeeded" or "failed", as the operator's.
inline constexpr std::string_view kOutcomeSucceeded = "succeeded";
inline constexpr std::string_view kOutcomeFailed = "failed";

struct DurationHistogram {
  std::vector<std::uint64_t> buckets = std::vector<std::uint64_t>(kRunDurationBucketCount, 0);  // cumulative
  std::uint64_t count = 0;
  double sum = 0;
};

// A scope's totals since its first run with metrics.
struct RunMetrics {
  std::map<std::string, std::uint64_t> runs;                           // outcome -> runs
  std::map<std::string, DurationHistogram> durations;                  // outcome -> durations
  std::map<std::pair<std::string, std::string>, std::uint64_t> nodes;  // (action, reason) -> nodes
  std::uint64_t unknown_data_versions = 0;
  double build_seconds = 0, build_seconds_saved = 0;
  std::optional<double> reuse_ratio;   // the last run's
  std::optional<double> last_success;  // Unix seconds
  // The last run's sources by exactness label (sources_by_exactness); nullopt before a run
  // with it was recorded.
  std::optional<std::map<std::string, std::uint64_t>> run_sources;
};

// One run's part.
struct RunContribution {
  std::string outcome;                                                 // kOutcomeSucceeded or kOutcomeFailed
  double seconds = 0;                                                  // start to end
  double finished_at = 0;                                              // Unix seconds
  std::map<std::pair<std::string, std::string>, std::uint64_t> nodes;  // (action, first reason code) -> nodes
  std::uint64_t unknown_data_versions = 0;
  std::uint64_t reused = 0, planned = 0;  // the plan's REUSE entries and all its entries
  double build_seconds = 0, build_seconds_saved = 0;
  std::map<std::string, std::uint64_t> sources;  // exactness label -> sources (sources_by_exactness)
};

// The sources of `inputs` by the exactness label of their chosen data version, every label of
// kSourceExactnessLabels present (0 when none); a version of exactness none counts as unknown.
std::map<std::string, std::uint64_t> sources_by_exactness(const planner::ProjectInputs& inputs);

// The plan's part of a run: its entries by action and first reason code, the reuse ratio's
// terms, the sources of `inputs` without a data version, and its sources by exactness.
RunContribution plan_contribution(const planner::ExecutionPlan& plan, const planner::ProjectInputs& inputs);

// `totals` with `run` added: a run of its outcome and duration, its nodes, unknown data
// versions and seconds; the reuse ratio and the sources by exactness become the run's (0 for a
// plan without entries); the last success its end when it succeeded.
RunMetrics add_run(RunMetrics totals, const RunContribution& run);

// The JSON kept in the ledger entry, and back. metrics_from_json is lenient (history): a member
// of the wrong shape is left at its empty value.
nlohmann::json to_json(const RunMetrics& metrics);
RunMetrics metrics_from_json(const nlohmann::json& doc);

// The totals of the newest of the scope's last kBuildSecondsEntries ledger entries that holds
// some; empty totals when none does (a first run, or only entries by others). Errors: the store's.
[[nodiscard]] ods::Result<RunMetrics> latest_metrics(contracts::StateStore& store, const std::string& scope);

enum class MetricsFormat {
  openmetrics,  // OpenMetrics 1.0 text (application/openmetrics-text), ending in "# EOF"
  prometheus,   // Prometheus text format 0.0.4 (what a Pushgateway accepts)
};

// `metrics` as samples labelled project=`project`, in `format`. Every family is written, the
// counters of both outcomes and of every reason code a plan entry starts with at 0 when none was
// counted; the gauges only once set.
std::string metrics_text(const RunMetrics& metrics, std::string_view project, MetricsFormat format);

}  // namespace ods::run
