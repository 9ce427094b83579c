#include "ods/control/events.h"

#include "ods/control/objects.h"
#include "ods/control/time_text.h"

namespace ods::control {

bool EventRecorder::record(const Json& object, EventType type, const std::string& reason, const std::string& message) {
  const kube::ObjectKey key = key_of(object);
  const std::string now = format_time(clock_.now());
  const Json event = {
      {"apiVersion", "v1"},
      {"kind", "Event"},
      {"metadata", {{"generateName", bounded_name(key.name, ".", 200)}, {"namespace", key.namespace_name}}},
      {"involvedObject",
       {{"apiVersion", object.value("apiVersion", "")},
        {"kind", object.value("kind", "")},
        {"namespace", key.namespace_name},
        {"name", key.name},
        {"uid", string_at(object, "/metadata/uid")},
        {"resourceVersion", string_at(object, "/metadata/resourceVersion")}}},
      {"reason", reason},
      {"message", message},
      {"type", type == EventType::normal ? "Normal" : "Warning"},
      {"source", {{"component", kComponent}}},
      {"reportingComponent", kComponent},
      {"reportingInstance", instance_},
      {"firstTimestamp", now},
      {"lastTimestamp", now},
      {"count", 1}};
  if (!client_.create(kCoreEvents, key.namespace_name, event)) {
    ++failures_;
    return false;
  }
  return true;
}

}  // namespace ods::control
