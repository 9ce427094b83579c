#include "ods/run/cutoff_waves.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <unordered_map>

#include "ods/planner/reason_codes.h"

namespace ods::run {

Result<CutoffMode> cutoff_mode_from_string(const std::string& text) {
  if (text == "auto") return CutoffMode::automatic;
  if (text == "always") return CutoffMode::always;
  if (text == "off") return CutoffMode::off;
  return fail("usage", "--cutoff: '" + text + "' is not one of auto, always, off");
}

namespace {

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", s);
  return buf;
}

// The BUILD entries downstream of `from` through BUILD entries only: a reused node between
// them means the one below builds for a reason of its own, which `from`'s content can't spare.
void collect_descendants(const std::string& from,
                         const std::unordered_map<std::string, std::vector<std::string>>& children,
                         const std::set<std::string>& building, std::set<std::string>& out) {
  std::vector<std::string> stack{from};
  while (!stack.empty()) {
    std::string id = std::move(stack.back());
    stack.pop_back();
    auto it = children.find(id);
    if (it == children.end()) continue;
    for (const auto& child : it->second) {
      if (!building.contains(child) || !out.insert(child).second) continue;
      stack.push_back(child);
    }
  }
}

}  // namespace

bool own_edit_defers_to_readers(const std::string& code) { return code == planner::reason::kFingerprintChanged; }

double measured_wave_seconds(double build_seconds, double node_seconds, double content_seconds, double estimate) {
  if (node_seconds <= 0) return estimate;
  return std::max(build_seconds - node_seconds, 0.0) + content_seconds;
}

bool cutoff_candidate_reason(const std::string& code, bool code_cutoff) {
  // Rebuilt because its relation was written outside ODS: its readers read ODS's earlier build,
  // so when the rebuild comes out with that content they keep it (early cutoff).
  if (code == planner::reason::kNewUpstreamData || code == planner::reason::kRelationChangedOutside) return true;
  if (!code_cutoff) return false;
  return code == planner::reason::kFingerprintChanged || code == planner::reason::kUpstreamCodeChanged ||
         code == planner::reason::kIncompleteFingerprint || code == planner::reason::kCompileNeedsUpstream;
}

Wave next_wave(const planner::ProjectInputs& inputs, const planner::ExecutionPlan& plan,
               const std::map<std::string, double>& node_seconds, double extra_call_seconds, CutoffMode mode,
               bool content_measurable, bool code_cutoff, const std::map<std::string, std::string>& unmeasured) {
  Wave wave;
  std::set<std::string> building;
  for (const auto& e : plan.entries)
    if (e.action == planner::Action::build) building.insert(e.id);
  auto all_now = [&](std::string why) {
    for (const auto& e : plan.entries)
      if (e.action == planner::Action::build) wave.now.push_back(e.id);
    wave.later.clear();
    wave.candidates.clear();
    wave.why = std::move(why);
    return wave;
  };
  if (mode == CutoffMode::off) return all_now("early cutoff is off (--cutoff off)");
  if (!content_measurable) return all_now("this warehouse's content can't be fingerprinted, so nothing cuts off");

  std::unordered_map<std::string, std::vector<std::string>> children;
  for (const auto& n : inputs.nodes)
    for (const auto& p : n.parents) children[p].push_back(n.id);
  std::set<std::string> later;
  int own_edits = 0;   // candidates passed over for their readers (own_edit_defers_to_readers)
  int too_costly = 0;  // candidates whose content costs more to measure than what lies below them
  for (const auto& e : plan.entries) {
    if (e.action != planner::Action::build || e.resource_type != "model" || e.reasons.empty() ||
        !cutoff_candidate_reason(e.reasons.front().code, code_cutoff))
      continue;
    std::set<std::string> below;
    collect_descendants(e.id, children, building, below);
    if (below.empty()) continue;
    if (mode == CutoffMode::automatic && own_edit_defers_to_readers(e.reasons.front().code)) {
      ++own_edits;
      continue;
    }
    if (unmeasured.contains(e.id)) {
      ++too_costly;
      continue;
    }
    wave.candidates.push_back(e.id);
    later.insert(below.begin(), below.end());
  }
  // A candidate below another candidate waits too: its own cutoff is judged in a later wave.
  std::erase_if(wave.candidates, [&](const std::string& id) { return later.contains(id); });
  const std::string costly_note =
      too_costly == 0 ? ""
                      : "; " + std::to_string(too_costly) +
                            " node(s) with descendants to spare are not measured: measuring their content took "
                            "longer than building what lies below them";
  if (wave.candidates.empty())
    return all_now((code_cutoff ? "no node built for new data or a code change has descendants to spare" +
                                      std::string(own_edits == 0 ? ""
                                                                 : " (edited models build with their readers, and "
                                                                   "those have nothing below them to spare)")
                                : "no node built only for new data has descendants to spare") +
                   costly_note);
  for (const auto& id : later)
    if (auto s = node_seconds.find(id); s != node_seconds.end()) wave.spare_seconds += s->second;
  if (mode == CutoffMode::automatic && wave.spare_seconds <= extra_call_seconds)
    return all_now("one wave: the " + std::to_string(later.size()) + " nodes early cutoff could spare took " +
                   seconds_text(wave.spare_seconds) + " when last built, not more than another dbt call (" +
                   seconds_text(extra_call_seconds) + ")" + costly_note);
  for (const auto& e : plan.entries) {
    if (e.action != planner::Action::build) continue;
    (later.contains(e.id) ? wave.later : wave.now).push_back(e.id);
  }
  wave.why = "a wave boundary after " + std::to_string(wave.candidates.size()) +
             (code_cutoff ? " node(s) built for new data or a code change" : " node(s) built only for new data") +
             ": their content decides " + std::to_string(wave.later.size()) + " descendant(s) (" +
             seconds_text(wave.spare_seconds) + " when last built" +
             (mode == CutoffMode::always ? ", --cutoff always"
                                         : " > " + seconds_text(extra_call_seconds) + " for another dbt call") +
             ")" +
             (own_edits == 0 ? ""
                             : "; " + std::to_string(own_edits) +
                                   " edited model(s) build with their readers, whose content decides instead") +
             costly_note;
  return wave;
}

}  // namespace ods::run
