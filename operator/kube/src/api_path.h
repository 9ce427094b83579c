#pragma once
// URL paths and query strings of the Kubernetes REST API (private to operator/kube).
#include <string>
#include <utility>
#include <vector>

#include "ods/kube/client.h"

namespace ods::kube::detail {

// /api/v1[/namespaces/<ns>]/<plural> or /apis/<group>/<version>[/namespaces/<ns>]/<plural>;
// no namespace segment when namespace_name is empty or the resource is cluster-scoped.
std::string collection_path(const Resource& resource, const std::string& namespace_name);
// collection_path()/<name>[/status]
std::string object_path(const Resource& resource, const ObjectKey& key, Subresource sub = Subresource::none);

// "?a=1&b=x%3Dy" from pairs with a non-empty value (values percent-encoded); "" when none.
std::string query(const std::vector<std::pair<std::string, std::string>>& parameters);

// "apiVersion" of a resource: "v1" or "<group>/<version>".
std::string api_version(const Resource& resource);

}  // namespace ods::kube::detail
