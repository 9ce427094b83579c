#pragma once
// One run of a project at a time (docs/kubernetes.md, "One run at a time"); private to
// operator/control. Before a DbtRun gets its runner Job, the project's
// spec.policies.concurrency decides:
// - Allow: it starts at once, beside any other run of the project;
// - Forbid (the default): it waits (phase Pending, reason WaitingForRun) while an older run of
//   the project is active, or while a runner Job or Pod of another run of the project has not
//   ended; runs then start one by one in creation order (creationTimestamp, then name);
// - Replace: the newest active run wins: it fails every older active run of the project
//   (reason Replaced) and deletes their Jobs, then waits until no runner Job or Pod of another
//   run is left; a run that finds a newer active run fails itself (Replaced).
// A scheduled tick under Forbid is skipped by the project reconciler before any run is created.
// The caller serialises calls (one at a time per reconciler), so two runs never both see a free
// project.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ods/base/result.h"
#include "ods/kube/client.h"

namespace ods::control {

using Json = nlohmann::json;

struct ConcurrencyVerdict {
  enum class Action { start, wait, superseded };
  Action action = Action::start;
  std::string message;           // wait / superseded: why, naming the run in the way
  std::vector<Json> to_replace;  // Replace: older active runs to fail and stop first
};

// The verdict for `run` of `project` (both as stored); reads the namespace's DbtRuns, and the
// runner Jobs and Pods labelled with the project.
[[nodiscard]] Result<ConcurrencyVerdict> concurrency_verdict(kube::Client& client, const Json& run,
                                                             const Json& project);

}  // namespace ods::control
