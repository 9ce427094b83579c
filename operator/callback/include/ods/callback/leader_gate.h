#pragma once
// The callback port of every replica, leader or not. Each replica of ods-operator listens on the
// callback port from its start, so the Service in front of the replicas may send a runner pod's
// request to any of them (the chart's readiness probe passes on followers too: a rollout with
// maxUnavailable 0 must not wait for a second leader). Only the leader can answer: while no
// service is open, every request gets 503 with the error code "not_leader", and the pod retries
// (its next connection may reach the leader; cli/src/pod/callback_client.h). The leader opens the
// gate with its CallbackService when its controllers start, and closes it when it stops leading.
#include <memory>
#include <shared_mutex>

#include "ods/callback/callback_service.h"

namespace ods::callback {

// The error code of a request a follower refuses (503): the protocol's JSON error.
inline constexpr const char* kNotLeaderCode = "not_leader";

class LeaderGate final : public CallbackService {
 public:
  // Hands requests to `service` from now on (the gate owns it until close()). Replaces a service
  // already open (after waiting for its requests in flight). Thread-safe.
  void open(std::unique_ptr<CallbackService> service);
  // From now on answers 503 not_leader; waits for the requests being handled by the service, then
  // destroys it. Idempotent. Thread-safe.
  void close();
  // The open service's answer, or 503 {"error": {"code": "not_leader", ...}} while closed. Never throws.
  CallbackResponse handle(const CallbackRequest& request) override;

 private:
  std::shared_mutex mutex_;  // shared: a request in flight; exclusive: open() and close()
  std::unique_ptr<CallbackService> service_;
};

}  // namespace ods::callback
