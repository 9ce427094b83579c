#include "ods/delta/delta_versions.h"

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>

#include "ods/delta/data_change.h"

namespace ods::delta {

namespace {

using contracts::ProbeAnswer;

constexpr const char* kDetail = "detail";
constexpr const char* kHistory = "history";

// A JSON object's members as text (a map column comes back as JSON text); {} when it isn't one.
std::map<std::string, std::string> text_map(const contracts::ProbeRow& row, const std::string& column) {
  std::map<std::string, std::string> out;
  auto it = row.find(column);
  if (it == row.end()) return out;
  auto j = nlohmann::json::parse(it->second, nullptr, false);
  if (!j.is_object()) return out;
  for (const auto& [key, value] : j.items()) {
    if (value.is_null()) continue;
    out[key] = value.is_string() ? value.get<std::string>() : value.dump();
  }
  return out;
}

std::string column(const contracts::ProbeRow& row, const std::string& name) {
  auto it = row.find(name);
  return it == row.end() ? "" : it->second;
}

std::optional<long long> as_version(const std::string& s) {
  long long v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

class DeltaVersions final : public contracts::ChangeProvider {
 public:
  explicit DeltaVersions(std::unique_ptr<contracts::ChangeProvider> other) : other_(std::move(other)) {}

  std::string origin() const override { return kDeltaOrigin; }

  contracts::ProbeRequest request() const override {
    contracts::ProbeRequest r;
    r.sources = true;
    r.nodes = true;
    r.filter.kinds = {"table"};
    r.filter.format = "delta";
    r.statements = {{kDetail, "describe detail {relation}", 1},
                    {kHistory, "describe history {relation} limit " + std::to_string(kHistoryWindow), kHistoryWindow}};
    if (other_) {
      auto theirs = other_->request();
      r.fallback = contracts::ProbeFallback{theirs.filter, theirs.statements};
    }
    return r;
  }

  std::vector<contracts::SourceVersion> versions(const contracts::ProbeReport& report,
                                                 const std::string& observed_at) const override {
    std::vector<contracts::SourceVersion> out;
    contracts::ProbeReport theirs;  // the fallback's answers, read by the other provider
    for (const auto& [id, answer] : report.sources) {
      if (answer.status == ProbeAnswer::Status::ok && answer.fallback && other_) {
        theirs.sources[id] = answer;
        continue;
      }
      out.push_back(one(id, answer, observed_at));
    }
    if (!theirs.sources.empty())
      for (auto& v : other_->versions(theirs, observed_at)) out.push_back(std::move(v));
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.source_id < b.source_id; });
    return out;
  }

 private:
  static contracts::SourceVersion unknown(contracts::SourceVersion v, std::string why) {
    v.why_unknown = std::move(why);
    return v;
  }

  static contracts::SourceVersion one(const std::string& id, const ProbeAnswer& answer,
                                      const std::string& observed_at) {
    contracts::SourceVersion v;
    v.source_id = id;
    v.probe_seconds = answer.seconds;
    switch (answer.status) {
      case ProbeAnswer::Status::skipped:
        return unknown(std::move(v),
                       "not a Delta table: " + (answer.why.empty() ? "the probe skipped it" : answer.why));
      case ProbeAnswer::Status::missing:
      case ProbeAnswer::Status::unknown:
        return unknown(std::move(v), answer.why.empty() ? "the probe had no answer" : answer.why);
      case ProbeAnswer::Status::ok:
        break;
    }
    if (answer.fallback) return unknown(std::move(v), "not a Delta table, and nothing else reads this kind of table");
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
    std::vector<std::pair<long long, DeltaCommit>> commits;
    for (const auto& row : history->second) {
      auto number = as_version(column(row, "version"));
      if (!number) return unknown(std::move(v), "DESCRIBE HISTORY gave a commit without a usable version");
      commits.push_back({*number,
                         {column(row, "version"), column(row, "timestamp"), column(row, "operation"),
                          text_map(row, "operationMetrics"), text_map(row, "operationParameters")}});
    }
    std::sort(commits.begin(), commits.end(), [](const auto& a, const auto& b) { return a.first > b.first; });

    std::vector<std::string> ignored;  // newer commits that change no data
    for (const auto& [number, commit] : commits) {
      CommitVerdict verdict = classify_commit(commit);
      if (!verdict.changes_data) {
        ignored.push_back("version " + commit.version + " (" + verdict.why + ")");
        continue;
      }
      v.version =
          planner::DataVersion{table_id + "/" + commit.version, planner::Exactness::exact, kDeltaOrigin, observed_at};
      v.evidence.push_back(
          {"source_commit", id,
           "version " + commit.version + ", " + commit.operation + " at " + commit.timestamp + ": " + verdict.why,
           planner::Exactness::exact, kDeltaOrigin});
      for (const auto& newer : ignored)
        v.evidence.push_back({"source_commit_ignored", id, newer, planner::Exactness::exact, kDeltaOrigin});
      return v;
    }
    return unknown(std::move(v), "none of the newest " + std::to_string(commits.size()) +
                                     " commits changes data, so the version of the data can't be named");
  }

  std::unique_ptr<contracts::ChangeProvider> other_;
};

}  // namespace

std::unique_ptr<contracts::ChangeProvider> make_delta_versions(
    std::unique_ptr<contracts::ChangeProvider> other_tables) {
  return std::make_unique<DeltaVersions>(std::move(other_tables));
}

}  // namespace ods::delta
