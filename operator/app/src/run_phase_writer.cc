#include "run_phase_writer.h"

namespace ods::operator_app {

using kube::Json;

Json status_summary(callback::RunPhase phase, const callback::RunSummary& s) {
  Json out = Json::object();
  const bool finished = phase == callback::RunPhase::succeeded || phase == callback::RunPhase::failed;
  if (finished && s.outcome != "") {
    const int built = s.built;
    out["plan"] = {{"total", built + s.reused + s.failed + s.skipped}, {"built", built}, {"reused", s.reused}};
  } else if (phase != callback::RunPhase::planning) {
    out["plan"] = {
        {"total", s.planned_build + s.planned_reuse}, {"built", s.planned_build}, {"reused", s.planned_reuse}};
  }
  // Per reason code, for `kubectl describe dbtrun` (status.plan.buildReasons / reuseReasons).
  if (out.contains("plan")) {
    if (!s.build_reasons.empty()) out["plan"]["buildReasons"] = s.build_reasons;
    if (!s.reuse_reasons.empty()) out["plan"]["reuseReasons"] = s.reuse_reasons;
  }
  if (!s.probe_seconds.empty() || s.unknown_data_versions > 0) {
    double total = 0;
    for (const auto& [source, seconds] : s.probe_seconds) total += seconds;
    out["probe"] = {{"sources", static_cast<int>(s.probe_seconds.size())},
                    {"unknown", s.unknown_data_versions},
                    {"durationSeconds", total}};
  }
  if (phase == callback::RunPhase::failed) {
    out["reason"] = s.outcome == "failed" || s.outcome == "partial" ? "BuildFailed" : "RecordFailed";
    out["message"] = s.message.empty() ? "the run failed" : s.message;
  } else if (phase == callback::RunPhase::succeeded) {
    out["reason"] = "Succeeded";
    out["message"] = "built " + std::to_string(s.built) + ", reused " + std::to_string(s.reused);
  }
  return out;
}

bool RunPhaseWriter::first_time(const callback::RunSummary& summary, callback::RunPhase phase) {
  std::lock_guard lock(mutex_);
  return counted_.insert({summary.run_uid, static_cast<int>(phase)}).second;
}

void RunPhaseWriter::count_plan(const std::string& project, const callback::RunSummary& s) {
  for (const auto& [source, seconds] : s.probe_seconds) metrics_.observe_probe(project, source, seconds);
  for (const auto& [reason, n] : s.build_reasons) {
    metrics_.count_nodes(project, telemetry::NodeAction::build, reason, static_cast<std::uint64_t>(n));
  }
  for (const auto& [reason, n] : s.reuse_reasons) {
    metrics_.count_nodes(project, telemetry::NodeAction::reuse, reason, static_cast<std::uint64_t>(n));
  }
  if (s.unknown_data_versions > 0) {
    metrics_.count_unknown_data_versions(project, static_cast<std::uint64_t>(s.unknown_data_versions));
  }
  if (!s.sources_by_exactness.empty()) {
    std::map<std::string, std::uint64_t> by_exactness;
    for (const auto& [exactness, n] : s.sources_by_exactness) by_exactness[exactness] = static_cast<std::uint64_t>(n);
    metrics_.set_run_sources(project, by_exactness);
  }
  metrics_.set_reuse_ratio(project, static_cast<std::uint64_t>(s.planned_reuse),
                           static_cast<std::uint64_t>(s.planned_build) + static_cast<std::uint64_t>(s.planned_reuse));
}

void RunPhaseWriter::on_phase(callback::RunPhase phase, const callback::RunSummary& summary) {
  const kube::ObjectKey key{summary.ns, summary.name};
  auto written = status_.set_phase(key, callback::to_string(phase), status_summary(phase, summary));
  if (!written && written.error().code != "run_finished" && written.error().code != "invalid_transition") {
    log_.warn("run status not written",
              {{"run", key.str()}, {"phase", callback::to_string(phase)}, {"error", written.error().message}});
  }
  log_.info("run phase", {{"run", key.str()},
                          {"phase", callback::to_string(phase)},
                          {"build", summary.planned_build},
                          {"reuse", summary.planned_reuse},
                          {"outcome", summary.outcome}});
  if (!first_time(summary, phase)) return;
  const std::string project = project_of_(key);
  if (phase == callback::RunPhase::building) count_plan(project, summary);
  if (phase == callback::RunPhase::succeeded || phase == callback::RunPhase::failed) {
    metrics_.record_run(project, phase == callback::RunPhase::succeeded ? "succeeded" : "failed",
                        summary.duration_seconds);
    metrics_.count_build_seconds(project, summary.build_seconds, summary.seconds_saved);
  }
}

}  // namespace ods::operator_app
