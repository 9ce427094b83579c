#include "project_counters.h"

#include <cmath>
#include <limits>

namespace ods::telemetry {

namespace {
constexpr double kAbsent = std::numeric_limits<double>::quiet_NaN();
}  // namespace

ProjectCounters::ProjectCounters(std::vector<Slot> slots) : slots_(std::move(slots)) {
  for (std::size_t i = 0; i < slots_.size(); ++i) by_key_.emplace(std::pair{slots_[i].family, slots_[i].labels}, i);
}

std::optional<std::size_t> ProjectCounters::find(std::string_view family, const prometheus::Labels& labels) const {
  const auto found = by_key_.find(std::pair{std::string(family), labels});
  if (found == by_key_.end()) return std::nullopt;
  return found->second;
}

std::vector<double>& ProjectCounters::row_locked(const std::string& project) {
  auto row = rows_.find(project);
  if (row == rows_.end()) row = rows_.emplace(project, std::vector<double>(slots_.size(), kAbsent)).first;
  return row->second;
}

void ProjectCounters::add_project(const std::string& project) {
  std::lock_guard lock(mutex_);
  for (double& value : row_locked(project))
    if (std::isnan(value)) value = 0;
}

void ProjectCounters::increment(const std::string& project, std::size_t slot, double by) {
  std::lock_guard lock(mutex_);
  double& value = row_locked(project).at(slot);
  if (std::isnan(value)) value = 0;
  if (by >= 0) value += by;  // as prometheus::Counter::Increment, which ignores a negative (and here NaN) `by`
}

void ProjectCounters::remove_project(const std::string& project) {
  std::lock_guard lock(mutex_);
  rows_.erase(project);
}

void ProjectCounters::collect_into(std::vector<prometheus::MetricFamily>& families) const {
  // The family each slot's samples go to, found (or added) once per scrape.
  std::map<std::string, std::size_t> family_at;
  std::vector<std::size_t> slot_family(slots_.size());
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    auto [at, added] = family_at.emplace(slots_[i].family, 0);
    if (added) {
      std::size_t f = 0;
      while (f < families.size() && families[f].name != slots_[i].family) ++f;
      if (f == families.size()) {
        prometheus::MetricFamily family;
        family.name = slots_[i].family;
        family.help = slots_[i].help;
        family.type = prometheus::MetricType::Counter;
        families.push_back(std::move(family));
      }
      at->second = f;
    }
    slot_family[i] = at->second;
  }
  std::lock_guard lock(mutex_);
  for (const auto& [project, row] : rows_) {
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      if (std::isnan(row[i])) continue;
      prometheus::Labels labels = slots_[i].labels;
      labels["project"] = project;
      prometheus::ClientMetric metric;
      for (auto& [name, value] : labels) metric.label.push_back({name, value});
      metric.counter.value = row[i];
      families[slot_family[i]].metric.push_back(std::move(metric));
    }
  }
}

}  // namespace ods::telemetry
