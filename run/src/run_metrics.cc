#include "ods/run/run_metrics.h"

#include <charconv>
#include <cmath>

#include "ods/planner/reason_catalog.h"
#include "ods/run/build_seconds.h"
#include "ods/run/run_details.h"

namespace ods::run {

using nlohmann::json;

std::map<std::string, std::uint64_t> sources_by_exactness(const planner::ProjectInputs& inputs) {
  std::map<std::string, std::uint64_t> out;
  for (std::string_view label : kSourceExactnessLabels) out[std::string(label)] = 0;
  for (const auto& source : inputs.sources) {
    const bool known = source.version && source.version->exactness != planner::Exactness::none;
    ++out[known ? std::string(planner::to_string(source.version->exactness)) : "unknown"];
  }
  return out;
}

RunContribution plan_contribution(const planner::ExecutionPlan& plan, const planner::ProjectInputs& inputs) {
  RunContribution c;
  for (const auto& e : plan.entries) {
    const std::string reason = e.reasons.empty() ? "" : e.reasons.front().code;
    ++c.nodes[{std::string(planner::to_string(e.action)), reason}];
    if (e.action == planner::Action::reuse) ++c.reused;
    ++c.planned;
  }
  for (const auto& source : inputs.sources)
    if (!source.version) ++c.unknown_data_versions;
  c.sources = sources_by_exactness(inputs);
  return c;
}

RunMetrics add_run(RunMetrics totals, const RunContribution& run) {
  ++totals.runs[run.outcome];
  DurationHistogram& h = totals.durations[run.outcome];
  for (std::size_t i = 0; i < kRunDurationBucketCount; ++i)
    if (run.seconds <= kRunDurationBuckets[i]) ++h.buckets[i];
  ++h.count;
  h.sum += run.seconds;
  for (const auto& [key, n] : run.nodes) totals.nodes[key] += n;
  totals.unknown_data_versions += run.unknown_data_versions;
  totals.build_seconds += run.build_seconds;
  totals.build_seconds_saved += run.build_seconds_saved;
  totals.reuse_ratio = run.planned == 0 ? 0.0 : static_cast<double>(run.reused) / static_cast<double>(run.planned);
  totals.run_sources = run.sources;
  if (run.outcome == kOutcomeSucceeded) totals.last_success = run.finished_at;
  return totals;
}

json to_json(const RunMetrics& m) {
  json doc{{"runs", m.runs},
           {"durations", json::object()},
           {"nodes", json::array()},
           {"unknown_data_versions", m.unknown_data_versions},
           {"build_seconds", m.build_seconds},
           {"build_seconds_saved", m.build_seconds_saved}};
  for (const auto& [outcome, h] : m.durations)
    doc["durations"][outcome] = {{"buckets", h.buckets}, {"count", h.count}, {"sum", h.sum}};
  for (const auto& [key, n] : m.nodes) doc["nodes"].push_back({key.first, key.second, n});
  if (m.reuse_ratio) doc["reuse_ratio"] = *m.reuse_ratio;
  if (m.last_success) doc["last_success"] = *m.last_success;
  if (m.run_sources) doc["run_sources"] = *m.run_sources;
  return doc;
}

namespace {

template <class T>
std::optional<T> member(const json& doc, const char* name) {
  try {
    if (doc.is_object() && doc.contains(name)) return doc.at(name).get<T>();
  } catch (const json::exception&) {
  }
  return std::nullopt;
}

// Label values escaped as both text formats want them: backslash, double quote, newline.
std::string escaped(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') out.push_back('\\');
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out.push_back(c);
  }
  return out;
}

// A sample value: integers without a fraction, others with enough digits to round-trip.
std::string number(double value) {
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buf[64];
  const auto end = std::to_chars(buf, buf + sizeof buf, value).ptr;  // the shortest text that reads back the same
  return std::string(buf, end);
}

// An `le` value as OpenMetrics wants it, a float ("1.0", "0.5").
std::string bound(double value) {
  std::string text = number(value);
  if (text.find_first_of(".e") == std::string::npos && text != "+Inf") text += ".0";
  return text;
}

class Writer {
 public:
  Writer(std::string_view project, MetricsFormat format) : project_(escaped(project)), format_(format) {}

  // The TYPE and HELP lines of a family; an OpenMetrics counter is named without _total.
  void family(const MetricName& metric, std::string_view type) {
    std::string name(metric.name);
    if (format_ == MetricsFormat::openmetrics && type == "counter" && name.ends_with("_total"))
      name.resize(name.size() - 6);
    out_ += "# HELP " + name + " " + std::string(metric.help) + "\n# TYPE " + name + " " + std::string(type) + "\n";
  }
  void sample(std::string_view name, const std::vector<std::pair<std::string, std::string>>& labels, double value) {
    out_ += std::string(name) + "{project=\"" + project_ + "\"";
    for (const auto& [k, v] : labels) out_ += "," + k + "=\"" + escaped(v) + "\"";
    out_ += "} " + number(value) + "\n";
  }
  std::string done() {
    if (format_ == MetricsFormat::openmetrics) out_ += "# EOF\n";
    return std::move(out_);
  }
  MetricsFormat format() const { return format_; }

 private:
  std::string project_;
  MetricsFormat format_;
  std::string out_;
};

}  // namespace

RunMetrics metrics_from_json(const json& doc) {
  RunMetrics m;
  m.runs = member<std::map<std::string, std::uint64_t>>(doc, "runs").value_or(m.runs);
  if (auto durations = member<json>(doc, "durations"); durations && durations->is_object()) {
    for (const auto& [outcome, h] : durations->items()) {
      DurationHistogram d;
      auto buckets = member<std::vector<std::uint64_t>>(h, "buckets");
      if (buckets && buckets->size() == kRunDurationBucketCount) d.buckets = *buckets;
      d.count = member<std::uint64_t>(h, "count").value_or(0);
      d.sum = member<double>(h, "sum").value_or(0);
      m.durations[outcome] = d;
    }
  }
  if (auto nodes = member<json>(doc, "nodes"); nodes && nodes->is_array()) {
    for (const auto& row : *nodes) {
      try {
        m.nodes[{row.at(0).get<std::string>(), row.at(1).get<std::string>()}] = row.at(2).get<std::uint64_t>();
      } catch (const json::exception&) {
      }
    }
  }
  m.unknown_data_versions = member<std::uint64_t>(doc, "unknown_data_versions").value_or(0);
  m.build_seconds = member<double>(doc, "build_seconds").value_or(0);
  m.build_seconds_saved = member<double>(doc, "build_seconds_saved").value_or(0);
  m.reuse_ratio = member<double>(doc, "reuse_ratio");
  m.last_success = member<double>(doc, "last_success");
  m.run_sources = member<std::map<std::string, std::uint64_t>>(doc, "run_sources");
  return m;
}

ods::Result<RunMetrics> latest_metrics(contracts::StateStore& store, const std::string& scope) {
  auto runs = store.runs_without_plans(scope, kBuildSecondsEntries);
  if (!runs) return std::unexpected(runs.error());
  for (const auto& entry : *runs) {  // newest first
    if (entry.details.find("\"metrics\"") == std::string::npos) continue;
    const RunDetails details = details_from_json(entry.details);
    if (details.metrics) return *details.metrics;
  }
  return RunMetrics{};
}

std::string metrics_text(const RunMetrics& m, std::string_view project, MetricsFormat format) {
  Writer w(project, format);
  const std::vector<std::string> outcomes{std::string(kOutcomeSucceeded), std::string(kOutcomeFailed)};
  w.family(kMetricRuns, "counter");
  for (const auto& outcome : outcomes) {
    auto it = m.runs.find(outcome);
    w.sample(kMetricRuns.name, {{"outcome", outcome}}, it == m.runs.end() ? 0.0 : static_cast<double>(it->second));
  }
  w.family(kMetricRunDuration, "histogram");
  for (const auto& outcome : outcomes) {
    auto it = m.durations.find(outcome);
    const DurationHistogram h = it == m.durations.end() ? DurationHistogram{} : it->second;
    const std::string name(kMetricRunDuration.name);
    for (std::size_t i = 0; i < kRunDurationBucketCount; ++i)
      w.sample(name + "_bucket", {{"outcome", outcome}, {"le", bound(kRunDurationBuckets[i])}},
               static_cast<double>(h.buckets[i]));
    w.sample(name + "_bucket", {{"outcome", outcome}, {"le", "+Inf"}}, static_cast<double>(h.count));
    w.sample(name + "_sum", {{"outcome", outcome}}, h.sum);
    w.sample(name + "_count", {{"outcome", outcome}}, static_cast<double>(h.count));
  }
  w.family(kMetricNodes, "counter");
  // Every reason code a plan entry can start with, at 0 until counted (as the operator's): a
  // series that first appears at its first count hides that count from increase().
  auto nodes = m.nodes;
  for (const auto& reason : planner::kReasonCodes)
    if (auto action = planner::first_reason_action(reason))
      nodes.try_emplace({std::string(planner::to_string(*action)), std::string(reason.code)}, 0);
  for (const auto& [key, n] : nodes)
    w.sample(kMetricNodes.name, {{"action", key.first}, {"reason", key.second}}, static_cast<double>(n));
  w.family(kMetricUnknownDataVersions, "counter");
  w.sample(kMetricUnknownDataVersions.name, {}, static_cast<double>(m.unknown_data_versions));
  w.family(kMetricBuildSeconds, "counter");
  w.sample(kMetricBuildSeconds.name, {}, m.build_seconds);
  w.family(kMetricBuildSecondsSaved, "counter");
  w.sample(kMetricBuildSecondsSaved.name, {}, m.build_seconds_saved);
  if (m.reuse_ratio) {
    w.family(kMetricReuseRatio, "gauge");
    w.sample(kMetricReuseRatio.name, {}, *m.reuse_ratio);
  }
  if (m.run_sources) {
    w.family(kMetricRunSources, "gauge");
    for (const auto& [exactness, n] : *m.run_sources)
      w.sample(kMetricRunSources.name, {{"exactness", exactness}}, static_cast<double>(n));
  }
  if (m.last_success) {
    w.family(kMetricLastSuccess, "gauge");
    w.sample(kMetricLastSuccess.name, {}, *m.last_success);
  }
  return w.done();
}

}  // namespace ods::run
