#pragma once
// Overlaps reading an artifact with converting its entries: a StreamSink that hands the
// entries, in order, to another sink running on a worker thread. The reading thread
// (stream_sections) then only tokenizes and builds the entries' small DOMs.
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "json_stream.h"

namespace ods::dbt::internal {

class ThreadedSink final : public StreamSink {
 public:
  // `consumer` receives on_value/on_entry on the worker thread, in stream order; its
  // keep_key is called on the reading thread and must not read state on_* writes.
  // `consumer` must outlive *this.
  explicit ThreadedSink(StreamSink& consumer);
  ~ThreadedSink() override;  // finish()es if still running
  ThreadedSink(const ThreadedSink&) = delete;
  ThreadedSink& operator=(const ThreadedSink&) = delete;

  Keep keep_key(std::size_t section, const EntrySoFar& partial, std::string_view key) const override;
  // Both return false once the consumer has stopped the stream.
  bool on_value(std::size_t section, Json&& value) override;
  bool on_entry(std::size_t section, std::string&& key, Json&& entry, const RawMembers& raw) override;

  // Waits until the consumer has received everything handed over, then joins the worker.
  // Rethrows an exception the consumer threw (e.g. std::bad_alloc). Idempotent.
  void finish();

 private:
  struct Item {
    std::size_t section = 0;
    bool whole_value = false;
    std::string key;
    Json value;
    RawMembers raw;  // views into the artifact's text, which outlives the stream
  };
  static constexpr std::size_t kBatchSize = 64;
  static constexpr std::size_t kMaxQueuedBatches = 16;  // bounds memory: ~1000 entries in flight

  bool push(Item&& item);
  void flush_batch();
  void run();

  StreamSink& consumer_;
  std::vector<Item> batch_;  // reading thread only
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::vector<Item>> queue_;  // guarded by mutex_
  bool closed_ = false;                  // guarded by mutex_
  std::atomic<bool> stopped_{false};     // the consumer returned false (or threw)
  std::exception_ptr failure_;           // written by the worker before it exits
  std::thread worker_;
};

}  // namespace ods::dbt::internal
