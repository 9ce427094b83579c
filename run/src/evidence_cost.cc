#include "ods/run/evidence_cost.h"

#include <cstdio>
#include <unordered_set>

namespace ods::run {

namespace {

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f s", s);
  return buf;
}

}  // namespace

bool evidence_costs_more(double evidence_seconds, double spare_seconds, bool skipped_last_time) {
  return evidence_seconds > (skipped_last_time ? kEvidenceReturnFraction * spare_seconds : spare_seconds);
}

Downstream::Downstream(const planner::ProjectInputs& inputs) {
  for (const auto& n : inputs.nodes)
    for (const auto& p : n.parents) children_[p].push_back(n.id);
}

DownstreamSeconds Downstream::seconds_below(const std::string& id, const std::map<std::string, double>& node_seconds,
                                            double enough) const {
  DownstreamSeconds out;
  std::unordered_set<std::string_view> seen;
  std::vector<std::string_view> stack{id};
  while (!stack.empty()) {
    const std::string_view at = stack.back();
    stack.pop_back();
    auto it = children_.find(std::string(at));
    if (it == children_.end()) continue;
    for (const auto& child : it->second) {
      if (!seen.insert(child).second) continue;
      if (auto s = node_seconds.find(child); s != node_seconds.end())
        out.seconds += s->second;
      else
        out.unknown = true;
      if (out.seconds > enough) {  // already worth it, whatever the rest costs
        out.unknown = false;
        return out;
      }
      stack.push_back(child);
    }
  }
  return out;
}

std::vector<std::string> Downstream::nodes_below(const std::vector<std::string>& ids) const {
  std::unordered_set<std::string_view> seen;
  std::vector<std::string> out;
  std::vector<std::string_view> stack(ids.begin(), ids.end());
  while (!stack.empty()) {
    auto it = children_.find(std::string(stack.back()));
    stack.pop_back();
    if (it == children_.end()) continue;
    for (const auto& child : it->second)
      if (seen.insert(child).second) {
        out.push_back(child);
        stack.push_back(child);
      }
  }
  return out;
}

std::optional<std::string> exact_evidence_too_costly(const std::string& id, const Downstream& downstream,
                                                     const RecordedEvidenceCosts& recorded,
                                                     const std::map<std::string, double>& node_seconds,
                                                     const std::string& what) {
  auto cost = recorded.seconds.find(id);
  if (cost == recorded.seconds.end()) return std::nullopt;  // never measured: read it, as before
  const bool skipped = recorded.skipped.contains(id);
  // Past this, the evidence is worth its seconds whatever the rest of the walk finds.
  const double enough = skipped ? cost->second / kEvidenceReturnFraction : cost->second;
  const DownstreamSeconds below = downstream.seconds_below(id, node_seconds, enough);
  if (below.unknown || !evidence_costs_more(cost->second, below.seconds, skipped)) return std::nullopt;
  return what + " took " + seconds_text(cost->second) + " when last read, more than " + (skipped ? "half of " : "") +
         "the " + seconds_text(below.seconds) + " that building everything downstream of it took when last built" +
         (skipped ? " (it was too costly last time too: it comes back when it costs at most half)" : "");
}

ExactChoice choose_exact(const Downstream& downstream, const std::vector<std::string>& ids,
                         const RecordedEvidenceCosts& recorded, const std::map<std::string, double>& node_seconds,
                         const std::string& what) {
  ExactChoice out;
  for (const auto& id : ids) {
    if (auto why = exact_evidence_too_costly(id, downstream, recorded, node_seconds, what)) {
      out.unread.emplace(id, std::move(*why));
    } else {
      out.read.push_back(id);
    }
  }
  return out;
}

}  // namespace ods::run
