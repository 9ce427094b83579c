#pragma once
// The counters OperatorMetrics makes appear at 0 for every project (ods_runs_total per outcome,
// ods_nodes_total per action and reason code, ods_unknown_data_versions_total,
// ods_build_seconds_total, ods_build_seconds_saved_total), kept as one row of doubles per project
// rather than as prometheus-cpp series: a series there costs ~370 B (its label map, hash node and
// counter), ~25 a project, 9.3 MB at 1,000 projects (docs/benchmarks.md, "Operator at scale");
// a row here is ~25 doubles. A counter not yet present is NaN: it appears at its project's
// add_project() or at its first increment, as a prometheus-cpp series appears at its Add().
// collect_into() hands them to a scrape as the samples of their families.
// Thread safety: every member may be called from several threads at once.
#include <prometheus/labels.h>
#include <prometheus/metric_family.h>

#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ods::telemetry {

class ProjectCounters {
 public:
  // One counter every project has: its family (name, help) and its labels besides `project`.
  struct Slot {
    std::string family;
    std::string help;
    prometheus::Labels labels;
  };
  explicit ProjectCounters(std::vector<Slot> slots);

  // The slot of `family` with `labels` (without `project`); nullopt when it is none of them.
  std::optional<std::size_t> find(std::string_view family, const prometheus::Labels& labels) const;
  // Every counter of `project` present, at 0 unless it already was. Idempotent.
  void add_project(const std::string& project);
  // Adds `by` to the counter `slot` of `project` (present from now on); a negative or NaN `by`
  // adds nothing, as prometheus::Counter::Increment.
  void increment(const std::string& project, std::size_t slot, double by);
  // Every counter of `project` gone.
  void remove_project(const std::string& project);
  // Appends each present counter as a sample of its family in `families` (the family added, as
  // a counter with its help, when `families` has none of that name).
  void collect_into(std::vector<prometheus::MetricFamily>& families) const;

 private:
  std::vector<double>& row_locked(const std::string& project);

  const std::vector<Slot> slots_;
  std::map<std::pair<std::string, prometheus::Labels>, std::size_t, std::less<>> by_key_;
  mutable std::mutex mutex_;
  std::map<std::string, std::vector<double>, std::less<>> rows_;  // project -> a value per slot
};

}  // namespace ods::telemetry
