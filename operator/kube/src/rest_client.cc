// make_client(): the Client on cpprestsdk (see ods/kube/rest_client.h).
#include "ods/kube/rest_client.h"

#include "api_path.h"
#include "http_transport.h"
#include "watch_stream.h"

namespace ods::kube {

namespace {

using detail::collection_path;
using detail::object_path;
using detail::query;
using web::http::methods;

constexpr const char* kJson = "application/json";

class RestClient final : public Client {
 public:
  explicit RestClient(std::shared_ptr<detail::HttpTransport> transport) : transport_(std::move(transport)) {}

  ApiResult<Json> get(const Resource& resource, const ObjectKey& key) override {
    return call(methods::GET, object_path(resource, key), nullptr, kJson);
  }

  ApiResult<std::optional<Json>> find(const Resource& resource, const ObjectKey& key) override {
    auto object = get(resource, key);
    if (object) return std::optional<Json>(std::move(*object));
    if (object.error().not_found()) return std::optional<Json>();
    return std::unexpected(object.error());
  }

  ApiResult<Json> list(const Resource& resource, const std::string& namespace_name,
                       const ListOptions& options) override {
    return call(methods::GET,
                collection_path(resource, namespace_name) +
                    query({{"labelSelector", options.label_selector}, {"fieldSelector", options.field_selector}}),
                nullptr, kJson);
  }

  ApiResult<Json> create(const Resource& resource, const std::string& namespace_name, const Json& object) override {
    return call(methods::POST, collection_path(resource, namespace_name), &object, kJson);
  }

  ApiResult<Json> replace(const Resource& resource, const ObjectKey& key, const Json& object,
                          Subresource sub) override {
    return call(methods::PUT, object_path(resource, key, sub), &object, kJson);
  }

  ApiResult<Json> merge_patch(const Resource& resource, const ObjectKey& key, const Json& patch,
                              Subresource sub) override {
    return call(methods::PATCH, object_path(resource, key, sub), &patch, "application/merge-patch+json");
  }

  ApiResult<Json> apply(const Resource& resource, const ObjectKey& key, const Json& object,
                        const std::string& field_manager, Subresource sub) override {
    return call(methods::PATCH,
                object_path(resource, key, sub) + query({{"fieldManager", field_manager}, {"force", "true"}}), &object,
                "application/apply-patch+yaml");
  }

  ApiResult<bool> remove(const Resource& resource, const ObjectKey& key) override {
    auto deleted =
        call(methods::DEL, object_path(resource, key) + query({{"propagationPolicy", "Background"}}), nullptr, kJson);
    if (deleted) return true;
    if (deleted.error().not_found()) return false;
    return std::unexpected(deleted.error());
  }

  ApiResult<std::unique_ptr<WatchStream>> watch(const Resource& resource, const std::string& namespace_name,
                                                const WatchOptions& options) override {
    const std::string path = collection_path(resource, namespace_name) +
                             query({{"watch", "true"},
                                    {"resourceVersion", options.resource_version},
                                    {"allowWatchBookmarks", options.allow_bookmarks ? "true" : ""},
                                    {"timeoutSeconds", std::to_string(options.timeout.count())},
                                    {"labelSelector", options.label_selector}});
    return detail::open_watch(*transport_, path, options.timeout + std::chrono::seconds(60));
  }

 private:
  ApiResult<Json> call(const web::http::method& method, const std::string& path, const Json* body,
                       const std::string& content_type) {
    auto reply = transport_->send(method, path, body ? body->dump() : "", content_type);
    if (!reply) return std::unexpected(reply.error());
    if (reply->body.empty()) return Json::object();
    Json parsed = Json::parse(reply->body, nullptr, false);
    if (parsed.is_discarded())
      return std::unexpected(
          ApiError{reply->status, "BadResponse",
                   std::string(method) + " " + path + ": the answer is not JSON: " + reply->body.substr(0, 200)});
    return parsed;
  }

  std::shared_ptr<detail::HttpTransport> transport_;
};

}  // namespace

Result<std::unique_ptr<Client>> make_client(const ClusterConfig& config, const ClientOptions& options) {
  auto transport = detail::HttpTransport::make(config, options);
  if (!transport) return std::unexpected(transport.error());
  return std::unique_ptr<Client>(std::make_unique<RestClient>(std::move(*transport)));
}

}  // namespace ods::kube
