#include "ods/iceberg/iceberg_versions.h"

#include <set>

#include "ods/base/sha256.h"
#include "ods/iceberg/snapshot_change.h"
#include "ods/table_format/format_versions.h"
#include "ods/table_format/probe_values.h"
#include "ods/table_format/version_walk.h"

namespace ods::iceberg {

namespace {

using contracts::ProbeAnswer;
using table_format::column;
using table_format::unknown;

constexpr const char* kMetadata = "metadata";
constexpr const char* kSnapshots = "snapshots";
constexpr const char* kColumns = "columns";
constexpr std::size_t kMaxColumns = 1000;

// The table's columns (name and type, in order) as a short digest: DESCRIBE TABLE's rows up to
// the first blank or '#' row (partitioning and metadata columns follow). "" when it lists none.
std::string columns_digest(const std::vector<contracts::ProbeRow>& rows) {
  std::string text;
  for (const auto& row : rows) {
    std::string name = column(row, "col_name");
    if (name.empty() || name.starts_with("#")) break;
    text += name + " " + column(row, "data_type") + "\n";
  }
  return text.empty() ? "" : sha256_hex(text).substr(0, 16);
}

// The answer of this format's own statements (table_format::format_versions gives the rest).
contracts::SourceVersion read_iceberg(contracts::SourceVersion v, const ProbeAnswer& answer,
                                      const std::string& observed_at) {
  auto metadata = answer.rows.find(kMetadata);
  if (metadata == answer.rows.end() || metadata->second.empty())
    return unknown(std::move(v), "metadata_log_entries gave no row");
  std::string current = column(metadata->second, "latest_snapshot_id");
  if (current.empty()) return unknown(std::move(v), "the table has no snapshot yet (metadata_log_entries names none)");
  auto columns = answer.row_sets.find(kColumns);
  std::string schema = columns == answer.row_sets.end() ? "" : columns_digest(columns->second);
  if (schema.empty()) return unknown(std::move(v), "DESCRIBE TABLE listed no column");

  std::map<std::string, IcebergSnapshot> by_id;
  auto rows = answer.row_sets.find(kSnapshots);
  if (rows != answer.row_sets.end())
    for (const auto& row : rows->second) {
      IcebergSnapshot s{column(row, "snapshot_id"), column(row, "parent_id"), column(row, "committed_at"),
                        column(row, "operation"), table_format::text_map(row, "summary")};
      if (s.snapshot_id.empty()) return unknown(std::move(v), "the snapshots table gave a row without a snapshot_id");
      by_id.emplace(s.snapshot_id, std::move(s));
    }
  if (!by_id.contains(current))
    return unknown(std::move(v), "the current snapshot " + current +
                                     " is not among the snapshots read (a commit between the two statements?)");

  // From the current snapshot through its parents, as far as the rows read go.
  std::vector<table_format::HistoryEntry> newest_first;
  std::set<std::string> seen;
  std::string at = current;
  bool reached_first = false;
  while (true) {
    auto it = by_id.find(at);
    if (it == by_id.end() || !seen.insert(at).second) break;
    const IcebergSnapshot& s = it->second;
    newest_first.push_back(
        {s.snapshot_id, "snapshot " + s.snapshot_id, s.operation + " at " + s.committed_at, classify_snapshot(s)});
    if (newest_first.back().verdict.changes_data) break;
    if (s.parent_id.empty()) {
      reached_first = true;
      break;
    }
    at = s.parent_id;
  }
  std::string why_none;
  if (reached_first)
    why_none = "no snapshot of the table changes data (" + std::to_string(newest_first.size()) +
               ", back to its first), so the version of the data can't be named";
  table_format::name_version(v, "schema-" + schema + "/", newest_first, {kIcebergOrigin, "snapshots"}, observed_at,
                             why_none);
  return v;
}

class IcebergVersions final : public contracts::ChangeProvider {
 public:
  std::string origin() const override { return kIcebergOrigin; }

  contracts::ProbeRequest request() const override {
    contracts::ProbeRequest r;
    r.sources = true;
    r.nodes = true;
    r.filter.kinds = {"table"};
    r.filter.format = "iceberg";
    r.statements = {{kMetadata,
                     "select latest_snapshot_id, timestamp from {relation}.metadata_log_entries "
                     "order by timestamp desc limit 1",
                     1},
                    {kSnapshots,
                     "select snapshot_id, parent_id, operation, committed_at, summary from {relation}.snapshots "
                     "where snapshot_id in (select snapshot_id from {relation}.history where is_current_ancestor) "
                     "order by committed_at desc limit " +
                         std::to_string(kSnapshotWindow),
                     kSnapshotWindow},
                    {kColumns, "describe table {relation}", kMaxColumns}};
    return r;
  }

  std::vector<contracts::SourceVersion> versions(const contracts::ProbeReport& report,
                                                 const std::string& observed_at) const override {
    return table_format::format_versions(report, observed_at, "an Iceberg table", read_iceberg);
  }
};

}  // namespace

std::unique_ptr<contracts::ChangeProvider> make_iceberg_versions() { return std::make_unique<IcebergVersions>(); }

}  // namespace ods::iceberg
