#include "ods/delta/delta_versions.h"

#include <algorithm>

#include "ods/delta/data_change.h"
#include "ods/table_format/format_versions.h"
#include "ods/table_format/probe_values.h"
#include "ods/table_format/version_walk.h"

namespace ods::delta {

namespace {

using contracts::ProbeAnswer;
using table_format::column;
using table_format::unknown;

constexpr const char* kDetail = "detail";
constexpr const char* kHistory = "history";

// The answer of this format's own statements (table_format::format_versions gives the rest).
contracts::SourceVersion read_delta(contracts::SourceVersion v, const ProbeAnswer& answer,
                                    const std::string& observed_at) {
  auto detail = answer.rows.find(kDetail);
  if (detail == answer.rows.end()) return unknown(std::move(v), "DESCRIBE DETAIL gave no row");
  std::string format = column(detail->second, "format");
  if (format != "delta")
    return unknown(std::move(v), "not a Delta table: DESCRIBE DETAIL reports the format '" + format + "'");
  std::string table_id = column(detail->second, "id");
  if (table_id.empty()) return unknown(std::move(v), "DESCRIBE DETAIL gave no table id");
  auto history = answer.row_sets.find(kHistory);
  if (history == answer.row_sets.end() || history->second.empty())
    return unknown(std::move(v), "DESCRIBE HISTORY gave no commits");

  // Newest first, whatever order the rows came in; a row without a version can't be placed.
  std::vector<std::pair<long long, table_format::HistoryEntry>> commits;
  for (const auto& row : history->second) {
    auto number = table_format::as_count(column(row, "version"));
    if (!number) return unknown(std::move(v), "DESCRIBE HISTORY gave a commit without a usable version");
    DeltaCommit commit{column(row, "version"), column(row, "timestamp"), column(row, "operation"),
                       table_format::text_map(row, "operationMetrics"),
                       table_format::text_map(row, "operationParameters")};
    commits.push_back({*number,
                       {commit.version, "version " + commit.version, commit.operation + " at " + commit.timestamp,
                        classify_commit(commit)}});
  }
  std::sort(commits.begin(), commits.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<table_format::HistoryEntry> newest_first;
  for (auto& [number, entry] : commits) newest_first.push_back(std::move(entry));
  table_format::name_version(v, table_id + "/", newest_first, {kDeltaOrigin, "commits"}, observed_at);
  return v;
}

class DeltaVersions final : public contracts::ChangeProvider {
 public:
  std::string origin() const override { return kDeltaOrigin; }

  contracts::ProbeRequest request() const override {
    contracts::ProbeRequest r;
    r.sources = true;
    r.nodes = true;
    r.filter.kinds = {"table"};
    r.filter.format = "delta";
    r.statements = {{kDetail, "describe detail {relation}", 1},
                    {kHistory, "describe history {relation} limit " + std::to_string(kHistoryWindow), kHistoryWindow}};
    return r;
  }

  std::vector<contracts::SourceVersion> versions(const contracts::ProbeReport& report,
                                                 const std::string& observed_at) const override {
    return table_format::format_versions(report, observed_at, "a Delta table", read_delta);
  }
};

}  // namespace

std::unique_ptr<contracts::ChangeProvider> make_delta_versions() { return std::make_unique<DeltaVersions>(); }

}  // namespace ods::delta
