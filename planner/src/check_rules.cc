// plan_checks(): which nodes' and sources' checks a test-only run runs (ADR-0013 #220, #232).
#include <algorithm>
#include <set>
#include <unordered_map>

#include "ods/base/iso8601.h"
#include "ods/planner/checks.h"
#include "ods/planner/planner.h"
#include "ods/planner/reason_codes.h"

namespace ods::planner {

std::string_view to_string(CheckAction a) { return a == CheckAction::run ? "run" : "skip"; }

int CheckPlan::count(CheckAction a) const {
  return static_cast<int>(
      std::count_if(entries.begin(), entries.end(), [a](const CheckEntry& e) { return e.action == a; }));
}

namespace {

using namespace reason;

std::string short_digest(const std::string& d) { return d.empty() ? "(none)" : d.substr(0, 12); }

CheckEntry& decide(CheckEntry& e, CheckAction action, std::string_view code, std::string message) {
  e.action = action;
  e.reasons.push_back({std::string(code), std::move(message)});
  return e;
}

// A passed record counts only against the checks as they are now (a record without a
// digest predates digests and counts for nothing).
bool record_matches(const TestRecord& tested, const std::string& digest, CheckEntry& e) {
  e.evidence.push_back({"checks_digest", e.id, short_digest(digest), Exactness::exact, "project inputs"});
  e.evidence.push_back({"last_test", e.id, tested.run_id, Exactness::exact,
                        "state, checks " + short_digest(tested.checks_digest) + " passed at " + tested.at});
  if (tested.checks_digest.empty()) {
    decide(e, CheckAction::run, kChecksChanged,
           "its checks passed in run " + tested.run_id + ", but that record has no checks digest to compare");
    return false;
  }
  if (tested.checks_digest != digest) {
    decide(e, CheckAction::run, kChecksChanged,
           "its checks changed (added, removed or edited) since they passed in run " + tested.run_id);
    return false;
  }
  return true;
}

CheckEntry node_entry(const NodeInput& node, const StateSnapshot* previous) {
  CheckEntry e{node.id, node.name, node.resource_type, CheckAction::skip, {}, {}};
  const NodeState* built = nullptr;
  if (previous) {
    if (auto it = previous->nodes.find(node.id); it != previous->nodes.end()) built = &it->second;
  }
  if (!built)
    return decide(e, CheckAction::skip, kNeverBuilt,
                  "no recorded build to test; `ods state run` builds it and runs its checks");
  e.evidence.push_back({"last_build", node.id, built->run_id, Exactness::exact, "state, built at " + built->built_at});
  if (!built->tested)
    return decide(e, CheckAction::run, kNotTested,
                  "no pass of its checks is recorded on its build of run " + built->run_id +
                      " (they failed, or never ran on it)");
  if (!record_matches(*built->tested, node.checks_digest, e)) return e;
  return decide(e, CheckAction::skip, kUnchanged,
                "already tested: its checks passed on this build in run " + built->tested->run_id + " (built by run " +
                    built->run_id + ")");
}

CheckEntry source_entry(const SourceInput& source, const StateSnapshot* previous) {
  CheckEntry e{source.id, source.name, "source", CheckAction::skip, {}, {}};
  const SourceState* state = nullptr;
  if (previous) {
    if (auto it = previous->sources.find(source.id); it != previous->sources.end()) state = &it->second;
  }
  if (!state || !state->tested)
    return decide(e, CheckAction::run, kNotTested,
                  "no pass of its checks is recorded (never passed, or failed last time)");
  if (!record_matches(*state->tested, source.checks_digest, e)) return e;
  const TestRecord& tested = *state->tested;
  if (source.version)
    e.evidence.push_back(
        {"source_data_version", source.id, source.version->value, source.version->exactness, source.version->origin});
  if (!source.version || !allows_reuse(source.version->exactness))
    return decide(e, CheckAction::run, kMissingDataEvidence,
                  "its data version now is unknown or not exact enough (below semantic), so the data may have changed");
  if (!state->version || !allows_reuse(state->version->exactness))
    return decide(e, CheckAction::run, kMissingDataEvidence,
                  "no usable data version was recorded when its checks passed in run " + tested.run_id);
  auto observed = parse_iso8601_micros(source.version->observed_at);
  auto passed = parse_iso8601_micros(tested.at);
  if (!observed || !passed || *observed <= *passed)
    return decide(e, CheckAction::run, kMissingDataEvidence,
                  "its version was observed at " + source.version->observed_at + ", not after its checks passed (" +
                      tested.at + "); it says nothing about data since");
  if (!(*state->version == *source.version))
    return decide(e, CheckAction::run, kNewUpstreamData,
                  "new data: its version moved from " + state->version->value + " to " + source.version->value +
                      " since its checks passed in run " + tested.run_id);
  return decide(e, CheckAction::skip, kUnchanged,
                "already tested: its checks passed in run " + tested.run_id + " on the data version it has now");
}

// A snapshot of another target identity counts as nothing recorded (ADR-0017), with a warning.
const StateSnapshot* same_target(const ProjectInputs& inputs, const StateSnapshot* previous, CheckPlan& plan) {
  if (previous && !previous->target_identity.empty() && !inputs.target_identity.empty() &&
      previous->target_identity != inputs.target_identity) {
    plan.warnings.push_back("the recorded state was built in " + previous->target_identity + ", not in " +
                            inputs.target_identity + "; no build or check of it counts here");
    return nullptr;
  }
  return previous;
}

void add_sources(const ProjectInputs& inputs, const StateSnapshot* previous,
                 const std::optional<std::set<std::string>>& selected, CheckPlan& plan) {
  for (const auto& source : inputs.sources) {
    if (source.checks_digest.empty() || (selected && !selected->contains(source.id))) continue;
    plan.entries.push_back(source_entry(source, previous));
  }
  std::sort(plan.entries.begin(), plan.entries.end(),
            [](const CheckEntry& a, const CheckEntry& b) { return a.id < b.id; });
}

std::optional<std::set<std::string>> selection_of(const CheckOptions& options) {
  if (!options.selected) return std::nullopt;
  return std::set<std::string>(options.selected->begin(), options.selected->end());
}

}  // namespace

bool checks_passed_on_build(const NodeInput& node, const NodeState& state) {
  return !node.checks_digest.empty() && state.tested && state.tested->checks_digest == node.checks_digest;
}

CheckPlan plan_run_checks(const ProjectInputs& inputs, const StateSnapshot* previous, const ExecutionPlan& plan,
                          const CheckOptions& options) {
  CheckPlan checks;
  checks.scope = plan.scope;
  previous = same_target(inputs, previous, checks);
  add_sources(inputs, previous, selection_of(options), checks);
  std::unordered_map<std::string, const NodeInput*> nodes;
  for (const auto& node : inputs.nodes) nodes.emplace(node.id, &node);
  std::vector<CheckEntry> reused;
  for (const auto& e : plan.entries) {
    const auto it = nodes.find(e.id);
    if (it == nodes.end()) continue;
    if (it->second->checks_digest.empty()) {
      ++checks.without_checks;
      continue;
    }
    if (e.action == Action::reuse) reused.push_back(node_entry(*it->second, previous));
  }
  std::sort(reused.begin(), reused.end(), [](const CheckEntry& a, const CheckEntry& b) { return a.id < b.id; });
  checks.entries.insert(checks.entries.end(), std::make_move_iterator(reused.begin()),
                        std::make_move_iterator(reused.end()));
  return checks;
}

CheckPlan plan_checks(const ProjectInputs& inputs, const StateSnapshot* previous, const CheckOptions& options) {
  CheckPlan plan;
  plan.scope = scope_of(inputs.project, inputs.target);
  plan.warnings = inputs.warnings;
  previous = same_target(inputs, previous, plan);
  const std::optional<std::set<std::string>> selected = selection_of(options);
  auto in_selection = [&](const std::string& id) { return !selected || selected->contains(id); };
  add_sources(inputs, previous, selected, plan);
  std::vector<CheckEntry> nodes;
  for (const auto& node : inputs.nodes) {
    if (!in_selection(node.id)) continue;
    if (node.checks_digest.empty()) {
      ++plan.without_checks;
      continue;
    }
    nodes.push_back(node_entry(node, previous));
  }
  std::sort(nodes.begin(), nodes.end(), [](const CheckEntry& a, const CheckEntry& b) { return a.id < b.id; });
  plan.entries.insert(plan.entries.end(), std::make_move_iterator(nodes.begin()), std::make_move_iterator(nodes.end()));
  return plan;
}

}  // namespace ods::planner
