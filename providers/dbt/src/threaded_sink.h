#pragma once
// Overlaps reading an artifact with converting its entries: a StreamSink that hands the
// entries to worker threads. Each entry is first prepared (the costly, pure half of its
// conversion) on any worker, out of stream order, then delivered to the consumer in stream
// order. The reading thread (stream_sections) then only tokenizes and builds the entries'
// small DOMs.
#include <any>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "json_stream.h"

namespace ods::dbt::internal {

// A StreamSink whose entries are converted in two halves.
class PreparingSink : public StreamSink {
 public:
  // The first half of an entry's conversion. Called on any worker, several at once and out of
  // stream order: it may only read its arguments and must not touch the sink's state.
  // An empty std::any when there is nothing to prepare.
  [[nodiscard]] virtual std::any prepare(std::size_t section, const std::string& key, const Json& entry,
                                         const RawMembers& raw) const = 0;
  // The second half, in stream order, one call at a time, with what prepare() returned.
  // Return false to stop the stream.
  virtual bool on_prepared(std::size_t section, std::string&& key, Json&& entry, const RawMembers& raw,
                           std::any&& prepared) = 0;
};

class ThreadedSink final : public StreamSink {
 public:
  // `consumer` receives prepare on `workers` worker threads and on_value/on_prepared in
  // stream order; its keep_key is called on the reading thread and must not read state
  // on_* writes. `consumer` must outlive *this. `text_done` (may be empty) is called in
  // stream order, one call at a time, on a worker, with a byte offset of the text before which
  // no entry is still to be prepared or delivered (from the stream's on_read_up_to; never
  // decreasing): the caller may release that part of the text.
  explicit ThreadedSink(PreparingSink& consumer, unsigned workers = 2, std::function<void(std::size_t)> text_done = {});
  ~ThreadedSink() override;  // finish()es if still running
  ThreadedSink(const ThreadedSink&) = delete;
  ThreadedSink& operator=(const ThreadedSink&) = delete;

  Keep keep_key(std::size_t section, const EntrySoFar& partial, std::string_view key) const override;
  // Both return false once the consumer has stopped the stream.
  bool on_value(std::size_t section, Json&& value) override;
  bool on_entry(std::size_t section, std::string&& key, Json&& entry, const RawMembers& raw) override;
  void on_read_up_to(std::size_t offset) override { read_up_to_ = offset; }

  // Waits until the consumer has received everything handed over, then joins the workers.
  // Rethrows the first exception the consumer threw (e.g. std::bad_alloc). Idempotent.
  void finish();

 private:
  struct Item {  // NOLINT(bugprone-exception-escape): clang-tidy 16 blames nlohmann's noexcept moves
    std::size_t section = 0;
    bool whole_value = false;
    std::string key;
    Json value;
    RawMembers raw;  // views into the artifact's text, which outlives the stream
    std::any prepared;
  };
  struct Batch {
    std::uint64_t number = 0;  // stream order
    std::vector<Item> items;
    std::size_t read_up_to = 0;  // the stream's offset when the batch was handed over
  };
  static constexpr std::size_t kBatchSize = 64;
  static constexpr std::size_t kMaxQueuedBatches = 16;  // bounds memory: ~1000 entries in flight

  bool push(Item&& item);
  void flush_batch();
  void run();
  void prepare(Batch& batch);
  void deliver(Batch& batch);
  void fail(std::exception_ptr e);

  PreparingSink& consumer_;
  std::function<void(std::size_t)> text_done_;
  std::vector<Item> batch_;       // reading thread only
  std::size_t read_up_to_ = 0;    // reading thread only
  std::uint64_t next_batch_ = 0;  // reading thread only
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Batch> queue_;           // guarded by mutex_
  std::uint64_t delivered_ = 0;       // batches delivered in order; guarded by mutex_
  bool closed_ = false;               // guarded by mutex_
  std::atomic<bool> stopped_{false};  // the consumer returned false (or threw)
  std::exception_ptr failure_;        // the first exception; guarded by mutex_
  std::vector<std::thread> workers_;
};

}  // namespace ods::dbt::internal
