#include "cached_reads.h"

#include <map>

namespace ods::operator_app {

using kube::Json;

namespace {

// "a=b,c=d" as label -> value; nullopt for anything else (set-based or != selectors).
std::optional<std::map<std::string, std::string>> equality_selector(const std::string& selector) {
  std::map<std::string, std::string> labels;
  std::size_t at = 0;
  while (at < selector.size()) {
    const auto end = std::min(selector.find(',', at), selector.size());
    const std::string term = selector.substr(at, end - at);
    const auto eq = term.find('=');
    if (eq == std::string::npos || eq == 0 || term.find_first_of("!()", 0) != std::string::npos) return std::nullopt;
    const std::string value = term.substr(term[eq + 1] == '=' ? eq + 2 : eq + 1);
    labels[term.substr(0, eq)] = value;
    at = end + 1;
  }
  return labels;
}

// "field=value" (or "field==value") as {field, value}; nullopt for anything else.
std::optional<std::pair<std::string, std::string>> one_field_equal(const std::string& selector) {
  const auto eq = selector.find('=');
  if (eq == std::string::npos || eq == 0 || selector.find_first_of(",!", 0) != std::string::npos) return std::nullopt;
  return std::pair{selector.substr(0, eq), selector.substr(selector[eq + 1] == '=' ? eq + 2 : eq + 1)};
}

bool labels_match(const Json& object, const std::map<std::string, std::string>& wanted) {
  const Json labels = object["metadata"].value("labels", Json::object());
  for (const auto& [k, v] : wanted)
    if (!labels.contains(k) || labels[k] != v) return false;
  return true;
}

}  // namespace

const kube::Informer* CachedReads::cache_of(const kube::Resource& resource) const {
  for (const auto& [r, informer] : caches_)
    if (r.group == resource.group && r.plural == resource.plural) return informer;
  return nullptr;
}

kube::ApiResult<Json> CachedReads::get(const kube::Resource& resource, const kube::ObjectKey& key) {
  const auto* cache = cache_of(resource);
  if (!cache) return api_.get(resource, key);
  auto found = cache->get(key);
  if (!found) return std::unexpected(kube::ApiError{404, "NotFound", resource.plural + " " + key.str() + " not found"});
  return *found;
}

kube::ApiResult<std::optional<Json>> CachedReads::find(const kube::Resource& resource, const kube::ObjectKey& key) {
  const auto* cache = cache_of(resource);
  if (!cache) return api_.find(resource, key);
  return cache->get(key);
}

kube::ApiResult<Json> CachedReads::list(const kube::Resource& resource, const std::string& namespace_name,
                                        const kube::ListOptions& options) {
  const auto* cache = cache_of(resource);
  auto selector = equality_selector(options.label_selector);
  if (!cache || !selector) return api_.list(resource, namespace_name, options);
  std::vector<Json> candidates;
  if (options.field_selector.empty()) {
    candidates = cache->list();
  } else {
    // Only a field the informer indexes: the index answers with the matching objects alone.
    const auto field = one_field_equal(options.field_selector);
    auto filed = field ? cache->by_index(field->first, field->second, namespace_name) : std::nullopt;
    if (!filed) return api_.list(resource, namespace_name, options);
    candidates = std::move(*filed);
  }
  Json items = Json::array();
  for (auto& object : candidates) {
    if (!namespace_name.empty() && object["metadata"].value("namespace", "") != namespace_name) continue;
    if (labels_match(object, *selector)) items.push_back(std::move(object));
  }
  return Json{{"items", std::move(items)}, {"metadata", {{"resourceVersion", cache->resource_version()}}}};
}

}  // namespace ods::operator_app
