#pragma once
// A kube::Client whose reads of the watched resources come from the informers' caches, as
// controller-runtime's default client reads from its cache: get, find and list (all objects of
// a namespace, or those whose labels equal an equality selector "a=b,c=d", and with a field
// selector "f=v" when the informer has an index named f, as controller-runtime's MatchingFields
// reads its field indexes) of a resource with an informer are answered from it; every write,
// and every read of another resource or with another selector, goes to the API server. The
// project reconciler lists the DbtRuns of its project on every reconcile (field selector
// spec.projectRef.name): from the index that costs O(the project's runs), where a scan of the
// namespace's runs cost O(all runs) per reconcile (docs/benchmarks.md, "Operator at scale").
//
// The caches lag the API server by a watch event: a reconcile may see an object as it was a
// moment ago (the next event queues it again), and a create of an object already there gets 409.
#include <utility>
#include <vector>

#include "ods/kube/client.h"
#include "ods/kube/informer.h"

namespace ods::operator_app {

class CachedReads final : public kube::Client {
 public:
  // `api` and the informers must outlive this object; each informer caches every object of its
  // resource the operator may read (no label selector of its own).
  CachedReads(kube::Client& api, std::vector<std::pair<kube::Resource, const kube::Informer*>> caches)
      : api_(api), caches_(std::move(caches)) {}

  kube::ApiResult<kube::Json> get(const kube::Resource& resource, const kube::ObjectKey& key) override;
  kube::ApiResult<std::optional<kube::Json>> find(const kube::Resource& resource, const kube::ObjectKey& key) override;
  kube::ApiResult<kube::Json> list(const kube::Resource& resource, const std::string& namespace_name,
                                   const kube::ListOptions& options) override;
  kube::ApiResult<kube::Json> create(const kube::Resource& resource, const std::string& namespace_name,
                                     const kube::Json& object) override {
    return api_.create(resource, namespace_name, object);
  }
  kube::ApiResult<kube::Json> replace(const kube::Resource& resource, const kube::ObjectKey& key,
                                      const kube::Json& object, kube::Subresource sub) override {
    return api_.replace(resource, key, object, sub);
  }
  kube::ApiResult<kube::Json> merge_patch(const kube::Resource& resource, const kube::ObjectKey& key,
                                          const kube::Json& patch, kube::Subresource sub) override {
    return api_.merge_patch(resource, key, patch, sub);
  }
  kube::ApiResult<kube::Json> apply(const kube::Resource& resource, const kube::ObjectKey& key,
                                    const kube::Json& object, const std::string& field_manager,
                                    kube::Subresource sub) override {
    return api_.apply(resource, key, object, field_manager, sub);
  }
  kube::ApiResult<bool> remove(const kube::Resource& resource, const kube::ObjectKey& key) override {
    return api_.remove(resource, key);
  }
  kube::ApiResult<std::unique_ptr<kube::WatchStream>> watch(const kube::Resource& resource,
                                                            const std::string& namespace_name,
                                                            const kube::WatchOptions& options) override {
    return api_.watch(resource, namespace_name, options);
  }

 private:
  const kube::Informer* cache_of(const kube::Resource& resource) const;

  kube::Client& api_;
  std::vector<std::pair<kube::Resource, const kube::Informer*>> caches_;
};

}  // namespace ods::operator_app
