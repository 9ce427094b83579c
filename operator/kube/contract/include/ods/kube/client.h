#pragma once
// The Kubernetes API as the operator uses it: objects are JSON documents (nlohmann::json) as the
// API server sends them; a resource is named by group, version and plural. This header is the
// contract between the client (operator/kube, on cpprestsdk) and its users (the reconcilers,
// leader election, the callback server); unit tests of those users implement it with a fake.
//
// Errors are values: every call returns ApiResult<T>, holding an ApiError for an answer that is
// not 2xx (the HTTP status and the Status object's reason and message, e.g. 404 NotFound,
// 409 AlreadyExists/Conflict, 410 Expired, 422 Invalid, 403 Forbidden) or for a transport failure
// (status 0, reason "Unreachable"). Nothing throws. All members are safe to call from several
// threads at once.
#include <chrono>
#include <expected>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace ods::kube {

using Json = nlohmann::json;

// A resource type: {"", "v1", "secrets"}, {"batch", "v1", "jobs"}, {"ods.dev", "v1alpha1", "dbtruns"}.
struct Resource {
  std::string group;  // "" for the core group
  std::string version;
  std::string plural;
  bool namespaced = true;
};

// Resources the operator touches.
namespace resources {
inline const Resource kDbtProjects{"ods.dev", "v1alpha1", "dbtprojects"};
inline const Resource kDbtRuns{"ods.dev", "v1alpha1", "dbtruns"};
inline const Resource kJobs{"batch", "v1", "jobs"};
inline const Resource kPods{"", "v1", "pods"};
inline const Resource kSecrets{"", "v1", "secrets"};
inline const Resource kEvents{"events.k8s.io", "v1", "events"};
inline const Resource kLeases{"coordination.k8s.io", "v1", "leases"};
}  // namespace resources

// namespace/name of one object ("" namespace for cluster-scoped resources).
struct ObjectKey {
  std::string namespace_name;
  std::string name;
  std::string str() const { return namespace_name.empty() ? name : namespace_name + "/" + name; }
  friend bool operator==(const ObjectKey&, const ObjectKey&) = default;
};

struct ApiError {
  int status = 0;       // HTTP status; 0 when the server was not reached
  std::string reason;   // Status.reason: "NotFound", "Conflict", "Expired", "Unreachable", …
  std::string message;  // what failed and where: verb, path, the server's message
  bool not_found() const { return status == 404; }
  bool conflict() const { return status == 409; }
  bool gone() const { return status == 410; }
};

template <typename T>
using ApiResult = std::expected<T, ApiError>;

// Which part of an object a write goes to.
enum class Subresource { none, status };

struct ListOptions {
  std::string label_selector;  // "app=ods,run=r1"; empty: all
  std::string field_selector;
};

struct WatchOptions {
  std::string resource_version;  // from the list (or the last event); empty: "start now"
  std::string label_selector;
  bool allow_bookmarks = true;
  std::chrono::seconds timeout{300};  // server-side timeoutSeconds; the stream ends after it
};

struct WatchEvent {
  enum class Type { added, modified, deleted, bookmark, error };
  Type type;
  Json object;  // the object; for error, the Status object (code 410: relist)
};

// One open watch: events in order as the server sends them.
class WatchStream {
 public:
  virtual ~WatchStream() = default;
  // Blocks for the next event; nullopt when the stream ended (server timeout, connection closed
  // or cancel()); an ApiError when the stream broke mid-way. A watch from a resourceVersion that
  // is too old gets an error event with a 410 Status (or watch() itself fails with 410): relist.
  virtual ApiResult<std::optional<WatchEvent>> next() = 0;
  // Ends the stream from another thread; a blocked next() returns nullopt.
  virtual void cancel() = 0;
};

class Client {
 public:
  virtual ~Client() = default;

  virtual ApiResult<Json> get(const Resource& resource, const ObjectKey& key) = 0;
  // get() that answers nullopt for 404.
  virtual ApiResult<std::optional<Json>> find(const Resource& resource, const ObjectKey& key) = 0;
  // The List object ("items", "metadata.resourceVersion"); namespace_name "" lists all namespaces.
  virtual ApiResult<Json> list(const Resource& resource, const std::string& namespace_name,
                               const ListOptions& options) = 0;
  // POST; the object carries its metadata (name or generateName). Returns the stored object.
  virtual ApiResult<Json> create(const Resource& resource, const std::string& namespace_name, const Json& object) = 0;
  // PUT of a whole object; its metadata.resourceVersion makes it a compare-and-swap (409 Conflict).
  virtual ApiResult<Json> replace(const Resource& resource, const ObjectKey& key, const Json& object,
                                  Subresource sub = Subresource::none) = 0;
  // JSON merge patch (application/merge-patch+json).
  virtual ApiResult<Json> merge_patch(const Resource& resource, const ObjectKey& key, const Json& patch,
                                      Subresource sub = Subresource::none) = 0;
  // Server-side apply (application/apply-patch+yaml, JSON is valid YAML) as field_manager, force=true.
  virtual ApiResult<Json> apply(const Resource& resource, const ObjectKey& key, const Json& object,
                                const std::string& field_manager, Subresource sub = Subresource::none) = 0;
  // DELETE with propagationPolicy=Background; a missing object is not an error (returns false).
  virtual ApiResult<bool> remove(const Resource& resource, const ObjectKey& key) = 0;
  virtual ApiResult<std::unique_ptr<WatchStream>> watch(const Resource& resource, const std::string& namespace_name,
                                                        const WatchOptions& options) = 0;
};

}  // namespace ods::kube
