#pragma once
// Small helpers on Kubernetes objects (nlohmann::json as the API server sends them).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ods/base/clock.h"
#include "ods/base/result.h"
#include "ods/kube/client.h"

namespace ods::control {

using Json = nlohmann::json;

// Labels and names the operator puts on what it creates.
inline constexpr std::string_view kProjectLabel = "ods.dev/project";
inline constexpr std::string_view kRunLabel = "ods.dev/run";
inline constexpr std::string_view kManagedByLabel = "app.kubernetes.io/managed-by";
inline constexpr std::string_view kComponent = "ods-operator";
// The field selector of a DbtRun's project (the CRD's selectableFields; the operator's cache
// indexes it, so the reconcilers' "runs of this project" lists answer from the index), and the
// JSON pointer of that field.
inline constexpr std::string_view kProjectRefField = "spec.projectRef.name";
inline constexpr std::string_view kProjectRefPointer = "/spec/projectRef/name";
// The list options that select the DbtRuns of `project` by kProjectRefField.
kube::ListOptions runs_of_project_options(const std::string& project);

// metadata.namespace / metadata.name of `object`.
kube::ObjectKey key_of(const Json& object);
// "namespace/name" → key; a key without '/' is cluster-scoped (empty namespace).
kube::ObjectKey parse_key(std::string_view text);
// metadata.generation, 0 when absent.
std::int64_t generation_of(const Json& object);
// A string member at a JSON pointer ("/status/phase"), or `fallback` when absent or not a string.
std::string string_at(const Json& object, std::string_view pointer, std::string_view fallback = "");
// A time member at a JSON pointer, nullopt when absent or unparseable.
std::optional<TimePoint> time_at(const Json& object, std::string_view pointer);

// An owner reference to `owner` (apiVersion, kind, name, uid) with controller and
// blockOwnerDeletion true: the owner's deletion deletes the object.
Json controller_reference(const Json& owner);
// The object's controller owner of `kind` as a key in the object's namespace, if any (maps a
// Job to its DbtRun for the Job watch).
std::optional<kube::ObjectKey> controller_of(const Json& object, std::string_view kind);

// `base` + `suffix` as an object name of at most `max_length` characters: when too long, `base`
// is cut and a short hash of the full base keeps names distinct.
std::string bounded_name(std::string_view base, std::string_view suffix, std::size_t max_length);

}  // namespace ods::control

namespace ods::control {

// An ods::Error (code "kube_api") for a failed API call: "<what>: <status> <reason>: <message>".
Error api_failure(std::string_view what, const kube::ApiError& error);

}  // namespace ods::control
