#include "ods/table_format/format_routing.h"

#include <algorithm>
#include <cctype>

namespace ods::table_format {

namespace {

using contracts::ProbeAnswer;

// "delta" -> "Delta": how a sentence names a format.
std::string display(std::string format) {
  if (!format.empty()) format[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(format[0])));
  return format;
}

class VersionsByFormat final : public contracts::ChangeProvider {
 public:
  VersionsByFormat(std::vector<std::unique_ptr<contracts::ChangeProvider>> formats,
                   std::unique_ptr<contracts::ChangeProvider> other)
      : readers_(std::move(formats)), formats_(readers_.size()) {
    if (other) readers_.push_back(std::move(other));
    std::string names;
    for (std::size_t i = 0; i < formats_; ++i) {
      auto format = readers_[i]->request().filter.format.value_or("");
      names += (i == 0 ? "" : (i + 1 == formats_ ? " or " : ", ")) + display(format);
    }
    not_ours_ = "not a " + names + " table";
  }

  std::string origin() const override {
    std::string out;
    for (const auto& r : readers_) out += (out.empty() ? "" : "+") + r->origin();
    return out;
  }

  contracts::ProbeRequest request() const override {
    contracts::ProbeRequest r = readers_.front()->request();
    for (std::size_t i = 1; i < readers_.size(); ++i) {
      auto theirs = readers_[i]->request();
      contracts::ProbeFallback branch{theirs.filter, theirs.statements};
      if (i == 1)
        r.fallback = std::move(branch);
      else
        r.further_fallbacks.push_back(std::move(branch));
    }
    return r;
  }

  std::vector<contracts::SourceVersion> versions(const contracts::ProbeReport& report,
                                                 const std::string& observed_at) const override {
    std::vector<contracts::SourceVersion> out;
    std::vector<contracts::ProbeReport> theirs(readers_.size());  // each branch's answers, read by its provider
    for (const auto& [id, answer] : report.sources) {
      if (answer.status == ProbeAnswer::Status::ok && answer.branch < readers_.size()) {
        ProbeAnswer mine = answer;  // as the provider's own request's answer
        mine.fallback = false;
        mine.branch = 0;
        theirs[answer.branch].sources[id] = std::move(mine);
        continue;
      }
      contracts::SourceVersion v;
      v.source_id = id;
      v.probe_seconds = answer.seconds;
      switch (answer.status) {
        case ProbeAnswer::Status::skipped:
          v.why_unknown = not_ours_ + ": " + (answer.why.empty() ? "the probe skipped it" : answer.why);
          break;
        case ProbeAnswer::Status::missing:
        case ProbeAnswer::Status::unknown:
          v.why_unknown = answer.why.empty() ? "the probe had no answer" : answer.why;
          break;
        case ProbeAnswer::Status::ok:
          v.why_unknown =
              "the probe ran statements of no branch this request has (branch " + std::to_string(answer.branch) + ")";
          break;
      }
      out.push_back(std::move(v));
    }
    for (std::size_t i = 0; i < readers_.size(); ++i)
      if (!theirs[i].sources.empty())
        for (auto& v : readers_[i]->versions(theirs[i], observed_at)) out.push_back(std::move(v));
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.source_id < b.source_id; });
    return out;
  }

 private:
  std::vector<std::unique_ptr<contracts::ChangeProvider>> readers_;  // the formats', then the other tables'
  std::size_t formats_;
  std::string not_ours_;  // "not a Delta or Iceberg table"
};

}  // namespace

std::unique_ptr<contracts::ChangeProvider> make_versions_by_format(
    std::vector<std::unique_ptr<contracts::ChangeProvider>> formats,
    std::unique_ptr<contracts::ChangeProvider> other_tables) {
  return std::make_unique<VersionsByFormat>(std::move(formats), std::move(other_tables));
}

}  // namespace ods::table_format
