#include "ods/kube/informer.h"

#include <random>

namespace ods::kube {

ObjectKey key_of(const Json& object) {
  const Json& metadata = object.contains("metadata") ? object["metadata"] : Json::object();
  return ObjectKey{metadata.value("namespace", ""), metadata.value("name", "")};
}

void strip_unread_members(Json& object) {
  if (!object.is_object()) return;
  const auto metadata = object.find("metadata");
  if (metadata == object.end() || !metadata->is_object()) return;
  metadata->erase("managedFields");
  const auto annotations = metadata->find("annotations");
  if (annotations != metadata->end() && annotations->is_object()) {
    annotations->erase("kubectl.kubernetes.io/last-applied-configuration");
  }
}

IndexFunction index_by_field(const std::string& pointer) {
  return [at = Json::json_pointer(pointer)](const Json& object) -> std::vector<std::string> {
    if (!object.contains(at)) return {};
    const Json& value = object.at(at);
    if (!value.is_string() || value.get_ref<const std::string&>().empty()) return {};
    return {value.get<std::string>()};
  };
}

namespace {

std::string resource_version_of(const Json& object) {
  if (!object.contains("metadata")) return "";
  return object["metadata"].value("resourceVersion", "");
}

std::chrono::milliseconds random_between(std::chrono::milliseconds low, std::chrono::milliseconds high) {
  thread_local std::mt19937 random(std::random_device{}());
  if (high <= low) return low;
  return std::chrono::milliseconds(std::uniform_int_distribution<long>(low.count(), high.count())(random));
}

}  // namespace

Informer::Informer(Client& client, InformerOptions options, Handler handler)
    : client_(client), options_(std::move(options)), handler_(std::move(handler)) {}

Informer::~Informer() { stop(); }

void Informer::start() {
  std::lock_guard lock(mutex_);
  if (thread_.joinable() || stopping_) return;
  thread_ = std::thread([this] { run(); });
}

void Informer::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    if (stream_) stream_->cancel();
  }
  changed_.notify_all();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

bool Informer::wait_for_sync(std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  changed_.wait_for(lock, timeout, [this] { return synced_.load(); });
  return synced_;
}

std::optional<Json> Informer::get(const ObjectKey& key) const {
  std::lock_guard lock(mutex_);
  auto it = cache_.find(key.str());
  if (it == cache_.end()) return std::nullopt;
  return Json::from_cbor(it->second.cbor);
}

std::vector<Json> Informer::list() const {
  std::lock_guard lock(mutex_);
  std::vector<Json> objects;
  objects.reserve(cache_.size());
  for (const auto& [key, object] : cache_) objects.push_back(Json::from_cbor(object.cbor));
  return objects;
}

std::optional<std::vector<Json>> Informer::by_index(const std::string& index, const std::string& value,
                                                    const std::string& namespace_name) const {
  if (!has_index(index)) return std::nullopt;
  std::vector<Json> objects;
  const std::string prefix = namespace_name.empty() ? "" : namespace_name + "/";
  std::lock_guard lock(mutex_);
  const auto filed = index_.find(index);
  if (filed == index_.end()) return objects;
  const auto bucket = filed->second.find(value);
  if (bucket == filed->second.end()) return objects;
  for (const std::string& key : bucket->second) {
    if (key.starts_with(prefix)) objects.push_back(Json::from_cbor(cache_.at(key).cbor));
  }
  return objects;
}

Informer::Cached Informer::cached(const Json& object) const {
  Cached c{Json::to_cbor(object), resource_version_of(object), {}};
  c.cbor.shrink_to_fit();
  c.filed.reserve(options_.indexes.size());
  for (const auto& [name, index_function] : options_.indexes) c.filed.push_back(index_function(object));
  return c;
}

void Informer::file(const std::string& key, const Cached& object, bool add) {
  std::size_t i = 0;
  for (const auto& [name, index_function] : options_.indexes) {
    auto& values = index_[name];
    for (const std::string& value : object.filed[i++]) {
      if (add) {
        values[value].insert(key);
        continue;
      }
      const auto bucket = values.find(value);
      if (bucket == values.end()) continue;
      bucket->second.erase(key);
      if (bucket->second.empty()) values.erase(bucket);
    }
  }
}

void Informer::cache_put(const std::string& key, const Json& object) {
  if (const auto old = cache_.find(key); old != cache_.end()) file(key, old->second, false);
  Cached entry = cached(object);
  file(key, entry, true);
  cache_[key] = std::move(entry);
}

void Informer::cache_erase(const std::string& key) {
  const auto old = cache_.find(key);
  if (old == cache_.end()) return;
  file(key, old->second, false);
  cache_.erase(old);
}

std::string Informer::resource_version() const {
  std::lock_guard lock(mutex_);
  return resource_version_;
}

std::string Informer::last_error() const {
  std::lock_guard lock(mutex_);
  return last_error_;
}

void Informer::record_error(const std::string& message) {
  std::lock_guard lock(mutex_);
  last_error_ = message;
}

void Informer::backoff(int failures) {
  auto delay = options_.min_backoff * (1L << std::min(failures, 16));
  if (delay > options_.max_backoff) delay = options_.max_backoff;
  delay = random_between(delay / 2, delay);
  std::unique_lock lock(mutex_);
  changed_.wait_for(lock, delay, [this] { return stopping_; });
}

void Informer::run() {
  bool need_list = true;
  bool first_list = true;
  bool first_watch = true;
  int failures = 0;
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return;
    }
    if (need_list) {
      if (!first_list) ++relists_;
      first_list = false;
      if (!relist()) {
        backoff(++failures);
        continue;
      }
      need_list = false;
      failures = 0;
    }
    if (!first_watch) ++reconnects_;
    first_watch = false;
    switch (watch_once()) {
      case WatchEnd::ended:
        failures = 0;
        break;
      case WatchEnd::ended_empty:  // a stream that ends without a word: do not hammer the server
        backoff(0);
        break;
      case WatchEnd::relist:
        need_list = true;
        break;
      case WatchEnd::failed:
        backoff(++failures);
        break;
      case WatchEnd::stopped:
        return;
    }
  }
}

bool Informer::relist() {
  auto listed = client_.list(options_.resource, options_.namespace_name, ListOptions{options_.label_selector, ""});
  if (!listed) {
    record_error("list: " + listed.error().message);
    return false;
  }
  // The listed objects stay DOMs only until the cache holds them and the handler has heard of
  // the changes; each is encoded once.
  std::map<std::string, Json> fresh;
  for (Json& item : (*listed)["items"]) {
    if (options_.transform) options_.transform(item);
    const std::string key = key_of(item).str();
    fresh[key] = std::move(item);
  }
  const std::string list_version = (*listed)["metadata"].value("resourceVersion", "");
  listed->clear();
  std::vector<std::pair<WatchEvent::Type, Json>> changes;
  bool first_list = false;
  {
    std::lock_guard lock(mutex_);
    first_list = !synced_;
    for (const auto& [key, object] : cache_)
      if (!fresh.contains(key)) changes.emplace_back(WatchEvent::Type::deleted, Json::from_cbor(object.cbor));
    std::map<std::string, Cached> entries;
    for (auto& [key, object] : fresh) {
      Cached entry = cached(object);
      auto old = cache_.find(key);
      if (old == cache_.end())
        changes.emplace_back(WatchEvent::Type::added, std::move(object));
      else if (old->second.resource_version != entry.resource_version)
        changes.emplace_back(WatchEvent::Type::modified, std::move(object));
      entries.emplace(key, std::move(entry));
    }
    fresh.clear();
    cache_ = std::move(entries);
    index_.clear();
    for (const auto& [key, object] : cache_) file(key, object, true);
    resource_version_ = list_version;
  }
  for (const auto& [type, object] : changes) handler_(type, object);
  changes.clear();
  if (first_list) {
    // Synced only once the handler has been told of everything listed: a caller that
    // waited for the sync sees the handler's view complete.
    std::lock_guard lock(mutex_);  // under the lock: wait_for_sync() cannot miss the notification
    synced_ = true;
  }
  changed_.notify_all();
  return true;
}

Informer::WatchEnd Informer::watch_once() {
  WatchOptions watch_options;
  watch_options.resource_version = resource_version();
  watch_options.label_selector = options_.label_selector;
  watch_options.allow_bookmarks = true;
  watch_options.timeout = std::chrono::duration_cast<std::chrono::seconds>(
      random_between(options_.watch_timeout, 2 * options_.watch_timeout - std::chrono::seconds(1)));
  auto opened = client_.watch(options_.resource, options_.namespace_name, watch_options);
  if (!opened) {
    record_error("watch: " + opened.error().message);
    return opened.error().gone() ? WatchEnd::relist : WatchEnd::failed;
  }
  std::unique_ptr<WatchStream> stream = std::move(*opened);
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return WatchEnd::stopped;
    stream_ = stream.get();
  }
  WatchEnd end = WatchEnd::ended_empty;
  for (;;) {
    auto next = stream->next();
    if (!next) {
      record_error("watch: " + next.error().message);
      end = WatchEnd::failed;
      break;
    }
    if (!next->has_value()) break;
    const WatchEvent& event = **next;
    if (event.type == WatchEvent::Type::error) {
      record_error("watch: ERROR event: " + event.object.dump());
      end = WatchEnd::relist;
      break;
    }
    apply_event(event);
    end = WatchEnd::ended;
  }
  std::lock_guard lock(mutex_);
  stream_ = nullptr;
  return stopping_ ? WatchEnd::stopped : end;
}

void Informer::apply_event(const WatchEvent& event) {
  const std::string version = resource_version_of(event.object);
  if (event.type == WatchEvent::Type::bookmark) {
    std::lock_guard lock(mutex_);
    if (!version.empty()) resource_version_ = version;
    ++bookmarks_;
    return;
  }
  Json object = event.object;
  if (options_.transform) options_.transform(object);
  {
    std::lock_guard lock(mutex_);
    if (!version.empty()) resource_version_ = version;
    const std::string key = key_of(object).str();
    switch (event.type) {
      case WatchEvent::Type::added:
      case WatchEvent::Type::modified:
        cache_put(key, object);
        break;
      case WatchEvent::Type::deleted:
        cache_erase(key);
        break;
      default:
        break;
    }
  }
  handler_(event.type, object);
}

}  // namespace ods::kube
