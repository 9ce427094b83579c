// record(): turns a finished run into the next snapshot. Only successful nodes advance (rule 4).
#include <set>

#include "dag.h"
#include "ods/base/iso8601.h"
#include "ods/planner/planner.h"

namespace ods::planner {

namespace {

bool is_success(const std::string& status) { return status == "success" || status == "pass"; }
bool is_failure(const std::string& status) {
  return status == "error" || status == "fail" || status == "runtime error";
}

// `id`'s state in the snapshot this one continues (null: none, or no such node).
const NodeState* previous_state(const std::string& id, const StateSnapshot* base) {
  if (base == nullptr) return nullptr;
  auto it = base->nodes.find(id);
  return it == base->nodes.end() ? nullptr : &it->second;
}

// `id`'s state recorded so far: this run's (`recorded`), else the previous snapshot's.
const NodeState* state_so_far(const std::string& id, const std::map<std::string, NodeState>& recorded,
                              const StateSnapshot* base) {
  if (auto it = recorded.find(id); it != recorded.end()) return &it->second;
  return previous_state(id, base);
}

NodeState built_state(const NodeInput& node, const RunOutcome& run, const std::map<std::string, NodeState>& recorded,
                      const StateSnapshot* base, const std::map<std::string, DataVersion>& versions) {
  NodeState s;
  s.fingerprint = node.fingerprint;
  s.raw_digest = node.raw_digest;
  s.compile_key = node.compile_key;
  s.built_at = run.started_at;
  s.run_id = run.run_id;
  if (auto c = run.node_contents.find(node.id); c != run.node_contents.end()) s.content = c->second;
  if (auto i = run.node_identities.find(node.id); i != run.node_identities.end()) s.relation_identity = i->second;
  for (const auto& p : node.parents) {
    if (const NodeState* parent = state_so_far(p, recorded, base)) {
      s.parent_runs[p] = parent->run_id;                             // the build of the parent that this build read
      if (parent->content) s.parent_contents[p] = *parent->content;  // and its content
    } else if (auto v = versions.find(p); v != versions.end()) {
      s.source_versions[p] = v->second;
    }
  }
  auto tests = run.node_tests_passed.find(node.id);
  if (tests != run.node_tests_passed.end() && tests->second && !node.checks_digest.empty()) {
    s.tested = TestRecord{run.run_id, run.started_at, node.checks_digest};
  }
  return s;
}

// Whether a node kept from an earlier build may take this run's compile key: its code is
// completely fingerprinted and its `sql` component (compiled under that key, or taken under the
// same key) is the recorded one, so the key's compiled SQL is the recorded SQL.
bool compiles_to_recorded_sql(const NodeInput& node, const NodeState& kept) {
  if (node.compile_key.empty() || !node.incomplete.empty() || !node.compile_needs_upstream.empty()) return false;
  const auto now = node.fingerprint.components.find("sql");
  const auto then = kept.fingerprint.components.find("sql");
  return now != node.fingerprint.components.end() && then != kept.fingerprint.components.end() &&
         now->second == then->second;
}

}  // namespace

Result<StateSnapshot> record(const ProjectInputs& inputs, const StateSnapshot* previous, const RunOutcome& run) {
  if (inputs.project.empty()) return fail("no_project_name", "the manifest has no project name");
  auto started = parse_iso8601_micros(run.started_at);
  if (!started) return fail("invalid_run", "the run's start time '" + run.started_at + "' is not a timestamp");
  // ADR-0013: a source version counts only if it was measured strictly before the run started;
  // otherwise a node could be recorded as having seen data that arrived after it was built.
  std::map<std::string, DataVersion> versions;
  for (const auto& [id, v] : run.source_versions) {
    auto at = parse_iso8601_micros(v.observed_at);
    if (at && *at < *started) versions.emplace(id, v);
  }
  StateSnapshot next;
  const StateSnapshot* base = nullptr;  // the state this one continues (read, not copied: tens of MB at 10k nodes)
  if (previous && previous->target_identity == inputs.target_identity) {
    auto prev_started = parse_iso8601_micros(previous->run_started_at);
    if (prev_started && *started < *prev_started) {
      return fail("stale_run", "run " + run.run_id + " started at " + run.started_at +
                                   ", before the recorded state's run " + previous->run_id + " (" +
                                   previous->run_started_at + "); recording it would go back in time");
    }
    base = previous;
    next.sources = previous->sources;
  }
  next.schema = kSnapshotSchema;
  next.project = inputs.project;
  next.environment = inputs.target.empty() ? "default" : inputs.target;
  next.target_identity = inputs.target_identity;
  next.run_id = run.run_id;
  next.run_started_at = run.started_at;

  auto dag = internal::dag_order(inputs);
  if (!dag) return std::unexpected(dag.error());
  // Parents this run rebuilt for code: a reader it left unbuilt read their older code, so a
  // content it read that covers only the rows says nothing about the new build's columns; such
  // entries are dropped (unknown: no cutoff). A content that covers the schema too stays: equal
  // to the new build's, it proves the output the reader read unchanged.
  std::set<std::string> rebuilt_for_code;
  for (const auto& id : run.built_for_code) {
    auto status = run.node_status.find(id);
    if (!run.checks_only && status != run.node_status.end() && is_success(status->second)) rebuilt_for_code.insert(id);
  }
  std::map<std::string, NodeState> nodes;  // only nodes still in the project
  for (std::size_t i : dag->order) {
    const NodeInput& node = inputs.nodes[i];
    auto status = run.checks_only ? run.node_status.end() : run.node_status.find(node.id);
    if (status != run.node_status.end() && is_success(status->second)) {
      nodes[node.id] = built_state(node, run, nodes, base, versions);
      continue;
    }
    const NodeState* kept = previous_state(node.id, base);
    if (kept == nullptr) continue;
    NodeState state = *kept;
    std::erase_if(state.parent_contents, [&](const auto& entry) {
      return rebuilt_for_code.contains(entry.first) && !entry.second.covers_schema;
    });
    const bool failed = status != run.node_status.end() && is_failure(status->second);
    if (failed) state.tested.reset();
    auto tests = run.node_tests_passed.find(node.id);
    if (tests != run.node_tests_passed.end() && !tests->second) state.tested.reset();
    if (tests != run.node_tests_passed.end() && tests->second && !failed && !node.checks_digest.empty())
      state.tested = TestRecord{run.run_id, run.started_at, node.checks_digest};  // a test-only run (#220)
    if (compiles_to_recorded_sql(node, state)) state.compile_key = node.compile_key;
    nodes[node.id] = std::move(state);
  }
  next.nodes = std::move(nodes);

  for (const auto& src : inputs.sources) {
    auto tests = run.source_tests_passed.find(src.id);
    if (tests == run.source_tests_passed.end()) continue;
    if (!tests->second || src.checks_digest.empty()) {
      next.sources.erase(src.id);
      continue;
    }
    SourceState s;
    s.tested = TestRecord{run.run_id, run.started_at, src.checks_digest};
    if (auto v = versions.find(src.id); v != versions.end()) s.version = v->second;
    next.sources[src.id] = s;
  }
  return next;
}

std::vector<std::string> compile_keys_to_record(const ProjectInputs& inputs, const StateSnapshot& recorded) {
  std::vector<std::string> ids;
  if (recorded.target_identity != inputs.target_identity) return ids;
  for (const NodeInput& node : inputs.nodes) {
    const auto kept = recorded.nodes.find(node.id);
    if (kept == recorded.nodes.end() || kept->second.compile_key == node.compile_key) continue;
    if (compiles_to_recorded_sql(node, kept->second)) ids.push_back(node.id);
  }
  return ids;
}

}  // namespace ods::planner
