#pragma once
// The version of a table whose format keeps a history (Delta's commits, Iceberg's snapshots):
// the newest entry of the table's current line that changes data, exact. Entries that change
// no data (compaction, maintenance, a write of nothing) are passed over, each kept as
// evidence; with none that changes data in the window, the version is unknown.
#include <string>
#include <vector>

#include "ods/contracts/change_provider.h"

namespace ods::table_format {

// Whether one commit or snapshot changes what a reader of the table sees.
struct ChangeVerdict {
  bool changes_data = true;
  std::string why;  // one sentence, for the evidence
};

struct HistoryEntry {
  std::string name;    // its part of the version value: "3", "7301448116526424381"
  std::string label;   // how the evidence names it: "version 3", "snapshot 7301448116526424381"
  std::string detail;  // what it was: "WRITE at 2026-12-01 10:00:00"
  ChangeVerdict verdict;
};

struct WalkNames {
  std::string origin;        // the version's origin ("delta_history")
  std::string entries_noun;  // "commits", "snapshots"
};

// Sets `v.version` to "<value_prefix><name of the newest entry that changes data>" (exact,
// `names.origin`, `observed_at`), with the evidence `source_commit` (label, detail and why of
// that entry) and one `source_commit_ignored` per newer entry passed over, newest first. With
// no entry that changes data, sets `v.why_unknown` (`why_none` when given, else a sentence
// saying none of the newest N entries changes data). `newest_first` must be in the table's
// order, newest first. Pure.
void name_version(contracts::SourceVersion& v, const std::string& value_prefix,
                  const std::vector<HistoryEntry>& newest_first, const WalkNames& names, const std::string& observed_at,
                  const std::string& why_none = "");

}  // namespace ods::table_format
