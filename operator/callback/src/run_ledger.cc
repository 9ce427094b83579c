#include "run_ledger.h"

#include "ods/run/run_details.h"

namespace ods::callback::detail {

using nlohmann::json;

namespace {

// Recent entries first: a run's entries are normally among the newest of its scope.
constexpr std::size_t kRecentEntries = 32;

}  // namespace

Result<std::optional<contracts::RunRecord>> find_entry(contracts::StateStore& store, const std::string& scope,
                                                       const std::string& run_id) {
  auto known = store.has_run(scope, run_id);
  if (!known) return std::unexpected(known.error());
  if (!*known) return std::optional<contracts::RunRecord>{};
  for (std::size_t limit : {kRecentEntries, std::size_t{0}}) {
    auto runs = store.runs(scope, limit);
    if (!runs) return std::unexpected(runs.error());
    for (auto& r : *runs)
      if (r.run_id == run_id) return std::optional<contracts::RunRecord>(std::move(r));
    if (runs->size() < limit) break;  // that was all of them
  }
  return std::optional<contracts::RunRecord>{};
}

Result<std::optional<contracts::StoredSnapshot>> find_snapshot(contracts::StateStore& store, const std::string& scope,
                                                               const std::string& run_id) {
  for (std::size_t limit : {kRecentEntries, std::size_t{0}}) {
    auto history = store.history(scope, limit);
    if (!history) return std::unexpected(history.error());
    for (auto& s : *history) {
      if (s.run_id != run_id) continue;
      std::string().swap(s.document);
      return std::optional<contracts::StoredSnapshot>(std::move(s));
    }
    if (history->size() < limit) break;
  }
  return std::optional<contracts::StoredSnapshot>{};
}

json summary_to_json(const RunSummary& s) {
  return {{"namespace", s.ns},
          {"name", s.name},
          {"run_uid", s.run_uid},
          {"scope", s.scope},
          {"planned_build", s.planned_build},
          {"planned_reuse", s.planned_reuse},
          {"build_reasons", s.build_reasons},
          {"reuse_reasons", s.reuse_reasons},
          {"selection", s.selection},
          {"probe_seconds", s.probe_seconds},
          {"unknown_data_versions", s.unknown_data_versions},
          {"sources_by_exactness", s.sources_by_exactness},
          {"seconds_saved", s.seconds_saved},
          {"outcome", s.outcome},
          {"built", s.built},
          {"failed", s.failed},
          {"skipped", s.skipped},
          {"reused", s.reused},
          {"duration_seconds", s.duration_seconds},
          {"build_seconds", s.build_seconds},
          {"snapshot_id", s.snapshot_id},
          {"message", s.message}};
}

RunSummary summary_from_json(const json& d) {
  RunSummary s;
  if (!d.is_object()) return s;
  s.ns = d.value("namespace", "");
  s.name = d.value("name", "");
  s.run_uid = d.value("run_uid", "");
  s.scope = d.value("scope", "");
  s.planned_build = d.value("planned_build", 0);
  s.planned_reuse = d.value("planned_reuse", 0);
  s.build_reasons = d.value("build_reasons", std::map<std::string, int>{});
  s.reuse_reasons = d.value("reuse_reasons", std::map<std::string, int>{});
  s.selection = d.value("selection", std::vector<std::string>{});
  s.probe_seconds = d.value("probe_seconds", std::map<std::string, double>{});
  s.unknown_data_versions = d.value("unknown_data_versions", 0);
  s.sources_by_exactness = d.value("sources_by_exactness", std::map<std::string, int>{});
  s.seconds_saved = d.value("seconds_saved", 0.0);
  s.outcome = d.value("outcome", "");
  s.built = d.value("built", 0);
  s.failed = d.value("failed", 0);
  s.skipped = d.value("skipped", 0);
  s.reused = d.value("reused", 0);
  s.duration_seconds = d.value("duration_seconds", 0.0);
  s.build_seconds = d.value("build_seconds", 0.0);
  s.snapshot_id = d.value("snapshot_id", "");
  s.message = d.value("message", "");
  return s;
}

RunSummary summary_of(const contracts::RunRecord& entry) {
  const run::RunDetails details = run::details_from_json(entry.details);
  return details.run_summary ? summary_from_json(*details.run_summary) : RunSummary{};
}

RecordedAnswer answer_of(const contracts::RunRecord& recorded, bool already_recorded) {
  const RunSummary s = summary_of(recorded);
  RecordedAnswer a;
  a.run_id = recorded.run_id;
  a.outcome = recorded.outcome;
  a.snapshot_id = recorded.snapshot_id;
  a.built = s.built;
  a.reused = s.reused;
  a.failed = s.failed;
  a.skipped = s.skipped;
  a.summary = s.message;
  a.already_recorded = already_recorded;
  return a;
}

}  // namespace ods::callback::detail
