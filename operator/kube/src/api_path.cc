#include "api_path.h"

#include <cctype>

namespace ods::kube::detail {

namespace {

std::string percent_encode(const std::string& value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : value) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(char(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
  }
  return out;
}

}  // namespace

std::string api_version(const Resource& resource) {
  return resource.group.empty() ? resource.version : resource.group + "/" + resource.version;
}

std::string collection_path(const Resource& resource, const std::string& namespace_name) {
  std::string path = resource.group.empty() ? "/api/" + resource.version : "/apis/" + api_version(resource);
  if (resource.namespaced && !namespace_name.empty()) path += "/namespaces/" + namespace_name;
  return path + "/" + resource.plural;
}

std::string object_path(const Resource& resource, const ObjectKey& key, Subresource sub) {
  std::string path = collection_path(resource, key.namespace_name) + "/" + key.name;
  if (sub == Subresource::status) path += "/status";
  return path;
}

std::string query(const std::vector<std::pair<std::string, std::string>>& parameters) {
  std::string out;
  for (const auto& [name, value] : parameters) {
    if (value.empty()) continue;
    out += (out.empty() ? "?" : "&") + name + "=" + percent_encode(value);
  }
  return out;
}

}  // namespace ods::kube::detail
