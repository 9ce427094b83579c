#pragma once
// An in-memory ods::kube::Client for unit tests: one object store per resource that behaves like
// the API server where the operator relies on it — resourceVersion compare-and-swap on replace
// (409 Conflict), generateName, AlreadyExists, JSON merge patch, the status subresource (writes to
// the main resource leave status alone and vice versa; metadata.generation counts spec changes),
// label selectors "k=v,k2=v2", and watches that see every later write (from a resourceVersion:
// the writes after it, as the API server replays them). No garbage collection.
// Tests can make the next call of a verb fail (fail_next) and count calls (calls). Thread-safe.
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ods/kube/client.h"

namespace ods::control::testing {

using kube::ApiError;
using kube::ApiResult;
using kube::Json;
using kube::ObjectKey;
using kube::Resource;

class FakeClient final : public kube::Client {
 public:
  ApiResult<Json> get(const Resource& resource, const ObjectKey& key) override;
  ApiResult<std::optional<Json>> find(const Resource& resource, const ObjectKey& key) override;
  ApiResult<Json> list(const Resource& resource, const std::string& namespace_name,
                       const kube::ListOptions& options) override;
  ApiResult<Json> create(const Resource& resource, const std::string& namespace_name, const Json& object) override;
  ApiResult<Json> replace(const Resource& resource, const ObjectKey& key, const Json& object,
                          kube::Subresource sub) override;
  ApiResult<Json> merge_patch(const Resource& resource, const ObjectKey& key, const Json& patch,
                              kube::Subresource sub) override;
  ApiResult<Json> apply(const Resource& resource, const ObjectKey& key, const Json& object,
                        const std::string& field_manager, kube::Subresource sub) override;
  ApiResult<bool> remove(const Resource& resource, const ObjectKey& key) override;
  ApiResult<std::unique_ptr<kube::WatchStream>> watch(const Resource& resource, const std::string& namespace_name,
                                                      const kube::WatchOptions& options) override;

  // The next call of `verb` ("get", "find", "list", "create", "replace", "merge_patch", "remove")
  // on `resource` answers `error`; a 404 for "find" answers "absent" (a stale read).
  void fail_next(const std::string& verb, const Resource& resource, ApiError error);
  // How many calls of `verb` on `resource` were made (failed ones included).
  int calls(const std::string& verb, const Resource& resource) const;
  // Every stored object of `resource` in `namespace_name`, by name.
  std::vector<Json> objects(const Resource& resource, const std::string& namespace_name) const;

  struct Watcher;

 private:
  ApiResult<Json> write_locked(const Resource& resource, const ObjectKey& key, Json object, kube::Subresource sub,
                               bool check_version);
  std::optional<ApiError> count_and_maybe_fail(const std::string& verb, const Resource& resource);
  void notify_locked(const Resource& resource, kube::WatchEvent::Type type, const Json& object);
  static bool wants(const Watcher& watcher, const std::string& resource_path, const Json& object);

  mutable std::mutex mutex_;
  std::map<std::string, std::map<std::string, Json>> store_;  // resource path → "ns/name" → object
  std::map<std::string, ApiError> failures_;
  std::map<std::string, int> calls_;
  std::vector<std::shared_ptr<Watcher>> watchers_;
  struct Recorded {
    long long version;
    std::string resource_path;
    kube::WatchEvent event;
  };
  std::vector<Recorded> history_;
  long long version_ = 100;
  int uid_ = 0;
};

}  // namespace ods::control::testing
