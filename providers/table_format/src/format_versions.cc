#include "ods/table_format/format_versions.h"

#include <algorithm>

namespace ods::table_format {

using contracts::ProbeAnswer;

contracts::SourceVersion unknown(contracts::SourceVersion v, std::string why) {
  v.why_unknown = std::move(why);
  return v;
}

std::vector<contracts::SourceVersion> format_versions(const contracts::ProbeReport& report,
                                                      const std::string& observed_at, const std::string& table_kind,
                                                      const FormatReader& read) {
  std::vector<contracts::SourceVersion> out;
  for (const auto& [id, answer] : report.sources) {
    contracts::SourceVersion v;
    v.source_id = id;
    v.probe_seconds = answer.seconds;
    switch (answer.status) {
      case ProbeAnswer::Status::skipped:
        out.push_back(unknown(std::move(v),
                              "not " + table_kind + ": " + (answer.why.empty() ? "the probe skipped it" : answer.why)));
        continue;
      case ProbeAnswer::Status::missing:
      case ProbeAnswer::Status::unknown:
        out.push_back(unknown(std::move(v), answer.why.empty() ? "the probe had no answer" : answer.why));
        continue;
      case ProbeAnswer::Status::ok:
        break;
    }
    if (answer.fallback || answer.branch != 0)
      out.push_back(unknown(std::move(v), "not " + table_kind + ": another branch's answer"));
    else
      out.push_back(read(std::move(v), answer, observed_at));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.source_id < b.source_id; });
  return out;
}

}  // namespace ods::table_format
