#include "ods/table_format/version_walk.h"

namespace ods::table_format {

void name_version(contracts::SourceVersion& v, const std::string& value_prefix,
                  const std::vector<HistoryEntry>& newest_first, const WalkNames& names, const std::string& observed_at,
                  const std::string& why_none) {
  std::vector<const HistoryEntry*> passed_over;  // newer entries that change no data
  for (const auto& entry : newest_first) {
    if (!entry.verdict.changes_data) {
      passed_over.push_back(&entry);
      continue;
    }
    v.version = planner::DataVersion{value_prefix + entry.name, planner::Exactness::exact, names.origin, observed_at};
    v.evidence.push_back({"source_commit", v.source_id, entry.label + ", " + entry.detail + ": " + entry.verdict.why,
                          planner::Exactness::exact, names.origin});
    for (const auto* newer : passed_over)
      v.evidence.push_back({"source_commit_ignored", v.source_id, newer->label + " (" + newer->verdict.why + ")",
                            planner::Exactness::exact, names.origin});
    return;
  }
  v.why_unknown = !why_none.empty()
                      ? why_none
                      : "none of the newest " + std::to_string(newest_first.size()) + " " + names.entries_noun +
                            " changes data, so the version of the data can't be named";
}

}  // namespace ods::table_format
