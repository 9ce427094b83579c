#include "crash/recorded_state.h"

#include <map>

namespace ods::testing {

std::string chain_problem(const RecordedState& state) {
  std::map<std::string, std::string> newest;  // scope -> id of its newest snapshot so far
  for (const auto& s : state.snapshots) {
    const std::string expected_parent = newest[s.scope];
    if (s.parent_id != expected_parent) {
      return "snapshot " + s.id + " (seq " + std::to_string(s.seq) + ") has parent '" + s.parent_id +
             "', not the scope's previous snapshot '" + expected_parent + "'";
    }
    newest[s.scope] = s.id;
  }
  for (const auto& [scope, head] : state.heads) {
    if (newest[scope] != head) return "the head of " + scope + " is " + head + ", not the newest " + newest[scope];
  }
  if (state.heads.size() != newest.size()) return "a scope with snapshots has no head";
  return "";
}

}  // namespace ods::testing
