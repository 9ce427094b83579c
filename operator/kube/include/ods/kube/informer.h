#pragma once
// An informer: a local copy of one resource's objects (in one namespace or all), kept current by
// list-then-watch, as client-go's reflector does it:
//   1. list; the cache becomes the list (the handler hears of what was added, changed — another
//      resourceVersion — or disappeared since the last list); has_synced() turns true;
//   2. watch from the list's resourceVersion with bookmarks; every event updates the cache, then
//      calls the handler; bookmarks only move the resourceVersion on;
//   3. when the stream ends (the server's timeoutSeconds), watch again from the last
//      resourceVersion seen (a reconnect);
//   4. on 410 Gone (from watch() or as an ERROR event) or any other ERROR event: relist (1);
//   5. on transport errors: wait (exponential backoff with jitter, min_backoff..max_backoff)
//      and retry the step that failed.
// The handler runs on the informer's thread, one call at a time, after the cache holds the
// change; it must not call stop().
// Every object is passed through `transform` before the cache keeps it or the handler sees it
// (client-go's TransformFunc); the default, strip_unread_members, drops what no reconciler reads.
// Each of `indexes` files every cached object under the values its function returns (client-go's
// Indexers): by_index() answers "the objects with this value" in O(their number), not O(cache),
// and the index follows every add, update (a value that changed moves the object), delete and
// relist.
// The cache keeps each object as CBOR (nlohmann's binary JSON) with its resourceVersion and index
// values, not as a DOM: a 1 KB DbtRun is ~0.7 KB of CBOR against ~6 KB as an nlohmann object; a read
// (get, list, by_index) decodes the objects it returns, which it copies anyway.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "ods/kube/client.h"

namespace ods::kube {

// Removes from `object` the members no reconciler of the operator reads, so the cache does not
// keep them: metadata.managedFields (server-side apply's record of field owners: kilobytes per
// object, read only by the API server) and the annotation
// kubectl.kubernetes.io/last-applied-configuration (a copy of the whole object as last applied).
// Everything else stays: the reconcilers read metadata (name, namespace, uid, resourceVersion,
// generation, creationTimestamp, labels, ownerReferences), spec and status. A stripped object is
// fit for reads, merge patches and status updates (a PUT to the status subresource takes only the
// status), not for a PUT of the whole object (it would drop that annotation).
void strip_unread_members(Json& object);

// The values an object is filed under in one index (none: not filed).
using IndexFunction = std::function<std::vector<std::string>(const Json& object)>;

// The index by a string field: the object's value at `pointer` ("/spec/projectRef/name"), when
// it is a non-empty string.
IndexFunction index_by_field(const std::string& pointer);

struct InformerOptions {
  Resource resource;
  std::string namespace_name;  // "" : all namespaces
  std::string label_selector;
  // Each watch asks the server to end it after a random time in [watch_timeout, 2*watch_timeout).
  std::chrono::seconds watch_timeout{300};
  std::chrono::milliseconds min_backoff{200};
  std::chrono::milliseconds max_backoff{std::chrono::seconds(30)};
  // Applied to every listed or watched object before it is cached (empty: keep it whole).
  std::function<void(Json&)> transform = strip_unread_members;
  // name -> index function; by_index(name, ...) reads it.
  std::map<std::string, IndexFunction> indexes;
};

class Informer {
 public:
  // added / modified / deleted (never bookmark or error) and the object (for deleted: its last state).
  using Handler = std::function<void(WatchEvent::Type, const Json& object)>;

  // `client` must outlive the informer.
  Informer(Client& client, InformerOptions options, Handler handler);
  ~Informer();  // stop()
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  // Starts the informer's thread (once).
  void start();
  // Ends the open watch and joins the thread; the cache keeps its content. Idempotent.
  void stop();

  // True once the first list has filled the cache and the handler has been called for every
  // object in it.
  bool has_synced() const { return synced_; }
  // Waits until has_synced() or the timeout; returns has_synced().
  bool wait_for_sync(std::chrono::milliseconds timeout) const;

  // The cached object, by namespace/name.
  std::optional<Json> get(const ObjectKey& key) const;
  // Every cached object, ordered by namespace/name.
  std::vector<Json> list() const;
  // The cached objects filed under `value` in index `index`, in `namespace_name` ("" : all),
  // ordered by namespace/name; nullopt when the informer has no such index.
  std::optional<std::vector<Json>> by_index(const std::string& index, const std::string& value,
                                            const std::string& namespace_name) const;
  bool has_index(const std::string& index) const { return options_.indexes.contains(index); }
  // The last resourceVersion seen (list, event or bookmark).
  std::string resource_version() const;

  // Lists after the first (each one a 410 or ERROR event); watches opened again after the first.
  std::uint64_t relists() const { return relists_; }
  std::uint64_t reconnects() const { return reconnects_; }
  std::uint64_t bookmarks() const { return bookmarks_; }
  // The last error met (empty when none), for logs and tests.
  std::string last_error() const;

 private:
  void run();
  [[nodiscard]] bool relist();  // false: failed (last_error set)
  enum class WatchEnd { ended, ended_empty, relist, failed, stopped };
  WatchEnd watch_once();
  void apply_event(const WatchEvent& event);
  void backoff(int failures);
  void record_error(const std::string& message);
  // The cache and its indexes change only through these (mutex_ held).
  // One cached object: CBOR, resourceVersion (compared by relists), and the values it is filed
  // under in each index, in options_.indexes' order (to unfile it without decoding it).
  struct Cached {
    std::vector<std::uint8_t> cbor;
    std::string resource_version;
    std::vector<std::vector<std::string>> filed;
  };
  Cached cached(const Json& object) const;
  void cache_put(const std::string& key, const Json& object);
  void cache_erase(const std::string& key);
  void file(const std::string& key, const Cached& object, bool add);

  Client& client_;
  InformerOptions options_;
  Handler handler_;

  mutable std::mutex mutex_;  // cache_, resource_version_, last_error_, stream_, stopping_
  mutable std::condition_variable changed_;
  std::map<std::string, Cached> cache_;  // key: namespace/name
  // index name -> value -> keys of the objects filed under it
  std::map<std::string, std::map<std::string, std::set<std::string>>> index_;
  std::string resource_version_;
  std::string last_error_;
  WatchStream* stream_ = nullptr;  // the open watch, for stop()
  bool stopping_ = false;

  std::atomic<bool> synced_{false};
  std::atomic<std::uint64_t> relists_{0};
  std::atomic<std::uint64_t> reconnects_{0};
  std::atomic<std::uint64_t> bookmarks_{0};
  std::thread thread_;
};

// namespace/name of an object from its metadata.
ObjectKey key_of(const Json& object);

}  // namespace ods::kube
