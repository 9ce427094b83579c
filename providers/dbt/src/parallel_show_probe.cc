// The dbt show probe in parts that run at once (relation_probe 0.4): one thread and one dbt
// call per share, their reports merged into one that answers every source.
#include <chrono>
#include <optional>
#include <thread>

#include "ods/dbt/show_probe.h"

namespace ods::dbt {

namespace {

// What a failed part leaves: each id of its share (named by the parts that ran) is unknown,
// saying why; ids some part answered are kept.
void mark_failed_shares(std::map<std::string, contracts::ProbeAnswer>& answers,
                        const std::map<std::string, std::size_t>& share_of, const std::vector<std::string>& failures) {
  for (const auto& [id, share] : share_of) {
    if (share >= failures.size() || failures[share].empty() || answers.contains(id)) continue;
    contracts::ProbeAnswer unknown;
    unknown.why = "part " + std::to_string(share + 1) + " of " + std::to_string(failures.size()) +
                  " of the probe failed: " + failures[share];
    answers.emplace(id, std::move(unknown));
  }
}

class ParallelShowProbe final : public contracts::RelationProbe {
 public:
  explicit ParallelShowProbe(std::vector<ShowProbePart> parts) : parts_(std::move(parts)) {}

  ods::Result<contracts::ProbeReport> probe(const contracts::ProbeRequest& request) override {
    const std::size_t count = parts_.size();
    if (count == 0) return fail("usage", "A parallel probe needs at least one part.");
    if (count == 1) return make_show_probe(*parts_[0].dbt, parts_[0].options)->probe(request);
    const auto started = std::chrono::steady_clock::now();
    std::vector<std::optional<ods::Result<contracts::ProbeReport>>> results(count);
    {
      std::vector<std::jthread> threads;
      threads.reserve(count);
      for (std::size_t i = 0; i < count; ++i) {
        threads.emplace_back([this, &request, &results, i, count] {
          contracts::ProbeRequest part = request;
          part.share = i;
          part.shares = count;
          results[i] = make_show_probe(*parts_[i].dbt, parts_[i].options)->probe(part);
        });
      }
    }  // joined
    contracts::ProbeReport merged;
    std::vector<std::string> failures(count);
    std::map<std::string, std::size_t> source_share, content_share;
    std::size_t failed = 0;
    for (std::size_t i = 0; i < count; ++i) {
      auto& result = *results[i];
      if (!result) {
        if (result.error().code == "cancelled") return std::unexpected(result.error());
        failures[i] = result.error().message;
        ++failed;
        continue;
      }
      merged.sources.merge(result->sources);
      merged.contents.merge(result->contents);
      if (i == 0) {
        merged.relations_exist = std::move(result->relations_exist);
        merged.relation_kinds = std::move(result->relation_kinds);
        merged.relation_identities = std::move(result->relation_identities);
      }
      if (i == 0) merged.target = std::move(result->target);
      source_share.merge(result->sources_elsewhere);
      content_share.merge(result->contents_elsewhere);
    }
    if (failed == count)
      return fail("probe_failed",
                  "every part of the probe (" + std::to_string(count) + ") failed; part 1: " + failures[0]);
    mark_failed_shares(merged.sources, source_share, failures);
    mark_failed_shares(merged.contents, content_share, failures);
    merged.call_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return merged;
  }

 private:
  std::vector<ShowProbePart> parts_;
};

}  // namespace

std::unique_ptr<contracts::RelationProbe> make_parallel_show_probe(std::vector<ShowProbePart> parts) {
  return std::make_unique<ParallelShowProbe>(std::move(parts));
}

}  // namespace ods::dbt
