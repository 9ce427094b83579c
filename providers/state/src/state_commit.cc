#include "ods/state/state_commit.h"

#include "ods/planner/json_io.h"

namespace ods::state {

Result<std::optional<Head>> read_head(contracts::StateStore& store, const std::string& scope) {
  auto latest = store.latest(scope);
  if (!latest) return std::unexpected(latest.error());
  if (!*latest) return std::optional<Head>{};
  auto snapshot = planner::snapshot_from_json((*latest)->document);
  if (!snapshot) {
    Error e = snapshot.error();
    e.message = "snapshot " + (*latest)->id + " of " + scope + ": " + e.message;
    return std::unexpected(e);
  }
  // The document is parsed: drop its text (tens of MB on large projects) before planning.
  std::string().swap((*latest)->document);
  return std::optional<Head>{Head{std::move(**latest), std::move(*snapshot)}};
}

Result<Committed> commit_outcome(contracts::StateStore& store, const std::string& scope,
                                 const planner::ProjectInputs& inputs, std::optional<Head> head,
                                 const planner::RunOutcome& outcome, std::ostream& err) {
  for (int attempt = 1;; ++attempt) {
    auto next = planner::record(inputs, head ? &head->snapshot : nullptr, outcome);
    if (!next) return std::unexpected(next.error());
    std::optional<std::string> parent;
    if (head) parent = head->stored.id;
    auto committed = store.commit(scope, parent, outcome.run_id, planner::to_json(*next));
    if (committed) {
      std::string().swap(committed->document);
      return Committed{std::move(*committed), std::move(*next)};
    }
    if (committed.error().code != "conflict") return std::unexpected(committed.error());
    if (attempt == kCommitAttempts) {
      return fail("conflict", "other writers kept recording state for " + scope + "; " +
                                  std::to_string(kCommitAttempts) + " attempts to commit run " + outcome.run_id +
                                  " lost the race");
    }
    err << "ods: another writer recorded state for " << scope << " during this run; re-applying run " << outcome.run_id
        << " on top of it (attempt " << attempt + 1 << " of " << kCommitAttempts << ")\n";
    auto latest = read_head(store, scope);
    if (!latest) return std::unexpected(latest.error());
    head = std::move(*latest);
  }
}

}  // namespace ods::state
