// The head step: what the run's scope has recorded, for the pod's compile (the parse's fast path
// in the pod, docs/kubernetes.md "Nothing changed in a runner pod").
#include "ods/state/state_commit.h"
#include "run_steps.h"

namespace ods::callback::detail {

Answer<HeadAnswer> answer_head(const RunCall& call, const HeadRequest& /*request*/, CallbackDeps& deps) {
  const std::string& scope = call.run.scope;
  auto head = state::read_head(deps.store, scope);
  if (!head) return store_refusal(head.error(), "reading the head of " + scope);
  HeadAnswer answer;
  answer.scope = scope;
  if (*head) {
    answer.snapshot_id = (*head)->stored.id;
    answer.snapshot = std::move((*head)->snapshot);
  }
  return answer;
}

}  // namespace ods::callback::detail
