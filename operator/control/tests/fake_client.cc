#include "fake_client.h"

#include <sstream>

namespace ods::control::testing {
namespace {

std::string path_of(const Resource& resource) {
  return resource.group + "/" + resource.version + "/" + resource.plural;
}

bool has_status_subresource(const Resource& resource) {
  return resource.plural != "secrets" && resource.plural != "events" && resource.plural != "leases";
}

ApiError error(int status, std::string reason, std::string message) {
  return ApiError{status, std::move(reason), std::move(message)};
}

bool labels_match(const Json& object, const std::string& selector) {
  if (selector.empty()) return true;
  std::stringstream parts(selector);
  std::string part;
  while (std::getline(parts, part, ',')) {
    const auto equals = part.find('=');
    const std::string name = part.substr(0, equals);
    const std::string value = equals == std::string::npos ? "" : part.substr(equals + 1);
    const Json::json_pointer pointer("/metadata/labels");
    if (!object.contains(pointer) || !object.at(pointer).contains(name)) return false;
    if (equals != std::string::npos && object.at(pointer).at(name) != value) return false;
  }
  return true;
}

// "a.b.c=v,d=w" as the API server reads a field selector: each dotted path's string value equals
// (or, with "!=", differs from) the given one; a missing field reads as "".
bool fields_match(const Json& object, const std::string& selector) {
  if (selector.empty()) return true;
  std::stringstream parts(selector);
  std::string part;
  while (std::getline(parts, part, ',')) {
    const auto equals = part.find('=');
    if (equals == std::string::npos || equals == 0) return false;
    const bool negated = part[equals - 1] == '!';
    std::string path = part.substr(0, negated ? equals - 1 : equals);
    const std::string value = part.substr(part[equals + 1] == '=' ? equals + 2 : equals + 1);
    for (char& c : path) c = c == '.' ? '/' : c;
    const Json::json_pointer pointer("/" + path);
    const std::string actual =
        object.contains(pointer) && object.at(pointer).is_string() ? object.at(pointer).get<std::string>() : "";
    if ((actual == value) == negated) return false;
  }
  return true;
}

}  // namespace

struct FakeClient::Watcher {
  std::string resource_path;
  std::string namespace_name;
  std::string label_selector;
  std::mutex mutex;
  std::condition_variable ready;
  std::deque<kube::WatchEvent> events;
  bool cancelled = false;
};

namespace {

class FakeWatchStream final : public kube::WatchStream {
 public:
  explicit FakeWatchStream(std::shared_ptr<FakeClient::Watcher> watcher) : watcher_(std::move(watcher)) {}
  ~FakeWatchStream() override { cancel(); }
  ApiResult<std::optional<kube::WatchEvent>> next() override {
    std::unique_lock lock(watcher_->mutex);
    watcher_->ready.wait(lock, [&] { return watcher_->cancelled || !watcher_->events.empty(); });
    if (watcher_->events.empty()) return std::optional<kube::WatchEvent>{};
    kube::WatchEvent event = std::move(watcher_->events.front());
    watcher_->events.pop_front();
    return std::optional<kube::WatchEvent>{std::move(event)};
  }
  void cancel() override {
    std::lock_guard lock(watcher_->mutex);
    watcher_->cancelled = true;
    watcher_->ready.notify_all();
  }

 private:
  std::shared_ptr<FakeClient::Watcher> watcher_;
};

}  // namespace

std::optional<ApiError> FakeClient::count_and_maybe_fail(const std::string& verb, const Resource& resource) {
  const std::string id = verb + " " + path_of(resource);
  ++calls_[id];
  const auto found = failures_.find(id);
  if (found == failures_.end()) return std::nullopt;
  ApiError failure = found->second;
  failures_.erase(found);
  return failure;
}

bool FakeClient::wants(const Watcher& watcher, const std::string& resource_path, const Json& object) {
  if (watcher.resource_path != resource_path) return false;
  if (!watcher.namespace_name.empty() && object["metadata"].value("namespace", "") != watcher.namespace_name) {
    return false;
  }
  return labels_match(object, watcher.label_selector);
}

void FakeClient::notify_locked(const Resource& resource, kube::WatchEvent::Type type, const Json& object) {
  history_.push_back({version_, path_of(resource), {type, object}});
  for (const auto& watcher : watchers_) {
    if (!wants(*watcher, path_of(resource), object)) continue;
    std::lock_guard lock(watcher->mutex);
    watcher->events.push_back({type, object});
    watcher->ready.notify_all();
  }
}

ApiResult<Json> FakeClient::get(const Resource& resource, const ObjectKey& key) {
  std::lock_guard lock(mutex_);
  if (auto failure = count_and_maybe_fail("get", resource)) return std::unexpected(*failure);
  const auto& objects = store_[path_of(resource)];
  const auto found = objects.find(key.str());
  if (found == objects.end()) {
    return std::unexpected(error(404, "NotFound", resource.plural + " \"" + key.name + "\" not found"));
  }
  return found->second;
}

ApiResult<std::optional<Json>> FakeClient::find(const Resource& resource, const ObjectKey& key) {
  {
    std::lock_guard lock(mutex_);
    if (auto failure = count_and_maybe_fail("find", resource)) {
      if (failure->not_found()) return std::optional<Json>{};  // a stale read
      return std::unexpected(*failure);
    }
    const auto& objects = store_[path_of(resource)];
    const auto found = objects.find(key.str());
    if (found == objects.end()) return std::optional<Json>{};
    return std::optional<Json>{found->second};
  }
}

ApiResult<Json> FakeClient::list(const Resource& resource, const std::string& namespace_name,
                                 const kube::ListOptions& options) {
  std::lock_guard lock(mutex_);
  if (auto failure = count_and_maybe_fail("list", resource)) return std::unexpected(*failure);
  Json items = Json::array();
  for (const auto& [key, object] : store_[path_of(resource)]) {
    if (!namespace_name.empty() && object["metadata"].value("namespace", "") != namespace_name) continue;
    if (labels_match(object, options.label_selector) && fields_match(object, options.field_selector)) {
      items.push_back(object);
    }
  }
  return Json{{"items", items}, {"metadata", {{"resourceVersion", std::to_string(version_)}}}};
}

ApiResult<Json> FakeClient::create(const Resource& resource, const std::string& namespace_name, const Json& input) {
  std::lock_guard lock(mutex_);
  if (auto failure = count_and_maybe_fail("create", resource)) return std::unexpected(*failure);
  Json object = input;
  Json& metadata = object["metadata"];
  if (!metadata.contains("name") && metadata.contains("generateName")) {
    metadata["name"] = metadata["generateName"].get<std::string>() + "g" + std::to_string(++uid_);
  }
  if (!metadata.contains("name")) return std::unexpected(error(422, "Invalid", "metadata.name: Required value"));
  metadata["namespace"] = namespace_name;
  const ObjectKey key{namespace_name, metadata["name"].get<std::string>()};
  auto& objects = store_[path_of(resource)];
  if (objects.contains(key.str())) {
    return std::unexpected(error(409, "AlreadyExists", resource.plural + " \"" + key.name + "\" already exists"));
  }
  metadata["uid"] = "uid-" + std::to_string(++uid_);
  metadata["generation"] = 1;
  metadata["creationTimestamp"] = metadata.value("creationTimestamp", "2026-01-01T00:00:00Z");
  metadata["resourceVersion"] = std::to_string(++version_);
  if (has_status_subresource(resource)) object.erase("status");
  objects[key.str()] = object;
  notify_locked(resource, kube::WatchEvent::Type::added, object);
  return object;
}

ApiResult<Json> FakeClient::write_locked(const Resource& resource, const ObjectKey& key, Json object,
                                         kube::Subresource sub, bool check_version) {
  auto& objects = store_[path_of(resource)];
  const auto found = objects.find(key.str());
  if (found == objects.end()) {
    return std::unexpected(error(404, "NotFound", resource.plural + " \"" + key.name + "\" not found"));
  }
  Json& stored = found->second;
  const std::string stored_version = stored["metadata"]["resourceVersion"];
  if (check_version && object.contains("metadata") && object["metadata"].contains("resourceVersion") &&
      object["metadata"]["resourceVersion"] != stored_version) {
    return std::unexpected(error(409, "Conflict",
                                 "Operation cannot be fulfilled on " + resource.plural + " \"" + key.name +
                                     "\": the object has been modified; please apply your changes to the latest "
                                     "version and try again"));
  }
  Json next = stored;
  if (sub == kube::Subresource::status) {
    next["status"] = object.value("status", Json::object());
  } else {
    Json metadata = object.value("metadata", Json::object());
    for (const char* fixed : {"uid", "generation", "creationTimestamp", "namespace", "name"}) {
      if (stored["metadata"].contains(fixed)) metadata[fixed] = stored["metadata"][fixed];
    }
    next = object;
    next["metadata"] = metadata;
    if (has_status_subresource(resource)) {
      if (stored.contains("status")) {
        next["status"] = stored["status"];
      } else {
        next.erase("status");
      }
    }
    if (next.value("spec", Json()) != stored.value("spec", Json())) {
      next["metadata"]["generation"] = stored["metadata"]["generation"].get<long long>() + 1;
    }
  }
  next["metadata"]["resourceVersion"] = std::to_string(++version_);
  stored = next;
  notify_locked(resource, kube::WatchEvent::Type::modified, stored);
  return stored;
}

ApiResult<Json> FakeClient::replace(const Resource& resource, const ObjectKey& key, const Json& object,
                                    kube::Subresource sub) {
  std::lock_guard lock(mutex_);
  if (auto failure = count_and_maybe_fail("replace", resource)) return std::unexpected(*failure);
  return write_locked(resource, key, object, sub, true);
}

ApiResult<Json> FakeClient::merge_patch(const Resource& resource, const ObjectKey& key, const Json& patch,
                                        kube::Subresource sub) {
  std::lock_guard lock(mutex_);
  if (auto failure = count_and_maybe_fail("merge_patch", resource)) return std::unexpected(*failure);
  const auto& objects = store_[path_of(resource)];
  const auto found = objects.find(key.str());
  if (found == objects.end()) {
    return std::unexpected(error(404, "NotFound", resource.plural + " \"" + key.name + "\" not found"));
  }
  Json merged = found->second;
  merged.merge_patch(patch);
  const bool check = patch.contains("metadata") && patch["metadata"].contains("resourceVersion");
  if (check) merged["metadata"]["resourceVersion"] = patch["metadata"]["resourceVersion"];
  return write_locked(resource, key, merged, sub, check);
}

ApiResult<Json> FakeClient::apply(const Resource& resource, const ObjectKey& key, const Json& object,
                                  const std::string&, kube::Subresource sub) {
  bool exists = false;
  {
    std::lock_guard lock(mutex_);
    if (auto failure = count_and_maybe_fail("apply", resource)) return std::unexpected(*failure);
    exists = store_[path_of(resource)].contains(key.str());
  }
  if (!exists) return create(resource, key.namespace_name, object);
  return merge_patch(resource, key, object, sub);
}

ApiResult<bool> FakeClient::remove(const Resource& resource, const ObjectKey& key) {
  std::lock_guard lock(mutex_);
  if (auto failure = count_and_maybe_fail("remove", resource)) return std::unexpected(*failure);
  auto& objects = store_[path_of(resource)];
  const auto found = objects.find(key.str());
  if (found == objects.end()) return false;
  Json object = found->second;
  objects.erase(found);
  object["metadata"]["resourceVersion"] = std::to_string(++version_);
  notify_locked(resource, kube::WatchEvent::Type::deleted, object);
  return true;
}

ApiResult<std::unique_ptr<kube::WatchStream>> FakeClient::watch(const Resource& resource,
                                                                const std::string& namespace_name,
                                                                const kube::WatchOptions& options) {
  std::lock_guard lock(mutex_);
  auto watcher = std::make_shared<Watcher>();
  watcher->resource_path = path_of(resource);
  watcher->namespace_name = namespace_name;
  watcher->label_selector = options.label_selector;
  if (!options.resource_version.empty()) {
    const long long from = std::stoll(options.resource_version);
    for (const Recorded& recorded : history_) {
      if (recorded.version > from && wants(*watcher, recorded.resource_path, recorded.event.object)) {
        watcher->events.push_back(recorded.event);
      }
    }
  }
  watchers_.push_back(watcher);
  return std::unique_ptr<kube::WatchStream>(new FakeWatchStream(watcher));
}

void FakeClient::fail_next(const std::string& verb, const Resource& resource, ApiError failure) {
  std::lock_guard lock(mutex_);
  failures_[verb + " " + path_of(resource)] = std::move(failure);
}

int FakeClient::calls(const std::string& verb, const Resource& resource) const {
  std::lock_guard lock(mutex_);
  const auto found = calls_.find(verb + " " + path_of(resource));
  return found == calls_.end() ? 0 : found->second;
}

std::vector<Json> FakeClient::objects(const Resource& resource, const std::string& namespace_name) const {
  std::lock_guard lock(mutex_);
  std::vector<Json> out;
  const auto found = store_.find(path_of(resource));
  if (found == store_.end()) return out;
  for (const auto& [key, object] : found->second) {
    if (object["metadata"].value("namespace", "") == namespace_name) out.push_back(object);
  }
  return out;
}

}  // namespace ods::control::testing
