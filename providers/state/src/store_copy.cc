// copy_state: moving scopes between stores (SQLite to PostgreSQL and back) through the contract.
#include <map>

#include "ods/state/stores.h"

namespace ods::state {
namespace {

using ods::contracts::StateStore;

ods::Result<void> copy_scope(StateStore& from, StateStore& to, const std::string& scope, const std::string& to_scope,
                             CopyReport& report) {
  auto snapshots = from.history(scope, 0);
  if (!snapshots) return std::unexpected(snapshots.error());
  std::map<std::string, std::string> new_ids;
  std::optional<std::string> parent;
  for (auto it = snapshots->rbegin(); it != snapshots->rend(); ++it) {
    auto committed = to.commit(to_scope, parent, it->run_id, it->document);
    if (!committed) return std::unexpected(committed.error());
    new_ids.emplace(it->id, committed->id);
    parent = committed->id;
    ++report.snapshots;
  }
  auto runs = from.runs(scope, 0);
  if (!runs) return std::unexpected(runs.error());
  for (auto it = runs->rbegin(); it != runs->rend(); ++it) {
    ods::contracts::RunRecord run = *it;
    run.scope = to_scope;
    if (run.snapshot_id) {
      const auto found = new_ids.find(*run.snapshot_id);
      run.snapshot_id = found == new_ids.end() ? std::nullopt : std::optional(found->second);
    }
    if (auto appended = to.append_run(run); !appended) return appended;
    ++report.runs;
  }
  ++report.scopes;
  return {};
}

}  // namespace

ods::Result<bool> holds_state(StateStore& store, const std::string& scope) {
  auto head = store.latest(scope);
  if (!head) return std::unexpected(head.error());
  if (head->has_value()) return true;
  auto runs = store.runs(scope, 1);
  if (!runs) return std::unexpected(runs.error());
  return !runs->empty();
}

ods::Result<CopyReport> copy_state(StateStore& from, StateStore& to, const std::vector<std::string>& scopes,
                                   bool replace) {
  for (const std::string& scope : scopes) {
    auto occupied = holds_state(to, scope);
    if (!occupied) return std::unexpected(occupied.error());
    if (*occupied && !replace) {
      return ods::fail("not_empty", "the target already holds state for " + scope +
                                        "; nothing was copied (replace it with --replace)");
    }
  }
  CopyReport report;
  for (const std::string& scope : scopes) {
    if (replace) {
      if (auto reset = to.reset(scope); !reset) return std::unexpected(reset.error());
    }
    if (auto copied = copy_scope(from, to, scope, scope, report); !copied) {
      ods::Error error = copied.error();
      error.message = "copying " + scope + ": " + error.message + " (" + std::to_string(report.scopes) +
                      " scopes were copied before it)";
      return std::unexpected(error);
    }
  }
  return report;
}

ods::Result<CopyReport> copy_scope_as(StateStore& from, StateStore& to, const std::string& from_scope,
                                      const std::string& to_scope) {
  auto occupied = holds_state(to, to_scope);
  if (!occupied) return std::unexpected(occupied.error());
  if (*occupied)
    return ods::fail("not_empty", "the target already holds state for " + to_scope + "; nothing was copied");
  CopyReport report;
  if (auto copied = copy_scope(from, to, from_scope, to_scope, report); !copied) return std::unexpected(copied.error());
  return report;
}

}  // namespace ods::state
