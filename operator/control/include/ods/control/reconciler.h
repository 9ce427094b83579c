#pragma once
// What a controller calls for each key its work queue hands out.
#include <chrono>
#include <optional>

#include "ods/base/result.h"
#include "ods/kube/client.h"

namespace ods::control {

struct ReconcileResult {
  // Reconcile the key again after this long (a scheduled wake-up); nullopt: only when it changes.
  std::optional<std::chrono::milliseconds> requeue_after;
};

class Reconciler {
 public:
  virtual ~Reconciler() = default;
  // Brings the world in line with the object `key` names (which may no longer exist: then it
  // cleans up or does nothing). Idempotent: calling it again with nothing changed writes nothing.
  // An error (an API call failed, code "kube_api") makes the controller retry with backoff.
  // Called from several worker threads, never twice at once for the same key.
  [[nodiscard]] virtual Result<ReconcileResult> reconcile(const kube::ObjectKey& key) = 0;
};

}  // namespace ods::control
