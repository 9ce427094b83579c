#pragma once
// Kubernetes Events about the operator's objects (core v1 Events, as `kubectl describe` shows
// them): involvedObject, reason (CamelCase), message, type Normal or Warning, reportingComponent
// "ods-operator". Events are best-effort: a failed create is counted, never an error of the
// reconcile that emitted it.
#include <atomic>
#include <cstdint>
#include <string>

#include "ods/base/clock.h"
#include "ods/kube/client.h"

namespace ods::control {

using Json = nlohmann::json;

// Core v1 events (the contract's resources::kEvents is events.k8s.io/v1, whose fields differ).
inline const kube::Resource kCoreEvents{"", "v1", "events"};

enum class EventType { normal, warning };

class EventRecorder {
 public:
  // `client` and `clock` must outlive the recorder. `instance` names this replica
  // (reportingInstance), e.g. the pod name.
  EventRecorder(kube::Client& client, Clock& clock, std::string instance = "ods-operator")
      : client_(client), clock_(clock), instance_(std::move(instance)) {}

  // Creates an Event about `object` (a namespaced object with apiVersion, kind and metadata).
  // Thread-safe; returns false (and counts a failure) when the API refused it.
  bool record(const Json& object, EventType type, const std::string& reason, const std::string& message);
  std::uint64_t failures() const { return failures_; }

 private:
  kube::Client& client_;
  Clock& clock_;
  std::string instance_;
  std::atomic<std::uint64_t> failures_{0};
};

}  // namespace ods::control
