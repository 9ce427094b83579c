#include "ods/callback/leader_gate.h"

#include <mutex>

#include "ods/callback/protocol.h"

namespace ods::callback {

void LeaderGate::open(std::unique_ptr<CallbackService> service) {
  std::unique_lock lock(mutex_);
  service_ = std::move(service);
}

void LeaderGate::close() {
  std::unique_ptr<CallbackService> closed;
  {
    std::unique_lock lock(mutex_);
    closed = std::move(service_);
  }
}

CallbackResponse LeaderGate::handle(const CallbackRequest& request) {
  std::shared_lock lock(mutex_);
  if (service_) return service_->handle(request);
  return {503, error_json(kNotLeaderCode, "",
                          "this ods-operator replica is not the leader; retry, the next attempt may reach the leader")};
}

}  // namespace ods::callback
