#include "threaded_sink.h"

#include <utility>

namespace ods::dbt::internal {

ThreadedSink::ThreadedSink(PreparingSink& consumer, unsigned workers, std::function<void(std::size_t)> text_done)
    : consumer_(consumer), text_done_(std::move(text_done)) {
  batch_.reserve(kBatchSize);
  for (unsigned i = 0; i < (workers == 0 ? 1 : workers); ++i) {
    workers_.emplace_back([this] { run(); });
  }
}

ThreadedSink::~ThreadedSink() {
  try {
    finish();
  } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor must not throw; finish() reports it
  }
}

Keep ThreadedSink::keep_key(std::size_t section, const EntrySoFar& partial, std::string_view key) const {
  if (stopped_.load(std::memory_order_relaxed)) return Keep::skip;
  return consumer_.keep_key(section, partial, key);
}

bool ThreadedSink::on_value(std::size_t section, Json&& value) {
  Item item;
  item.section = section;
  item.whole_value = true;
  item.value = std::move(value);
  return push(std::move(item));
}

bool ThreadedSink::on_entry(std::size_t section, std::string&& key, Json&& entry, const RawMembers& raw) {
  Item item;
  item.section = section;
  item.key = std::move(key);
  item.value = std::move(entry);
  item.raw = raw;
  return push(std::move(item));
}

bool ThreadedSink::push(Item&& item) {
  if (stopped_.load(std::memory_order_relaxed)) return false;
  batch_.push_back(std::move(item));
  if (batch_.size() >= kBatchSize) flush_batch();
  return true;
}

void ThreadedSink::flush_batch() {
  if (batch_.empty()) return;
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return queue_.size() < kMaxQueuedBatches || stopped_.load(); });
  // read_up_to_ was last set before the batch's newest entry: every entry of this batch and of
  // the ones before it starts at or after the offsets earlier batches carry.
  queue_.push_back(Batch{next_batch_++, std::move(batch_), read_up_to_});
  batch_ = {};
  batch_.reserve(kBatchSize);
  changed_.notify_all();
}

void ThreadedSink::finish() {
  if (workers_.empty()) return;
  flush_batch();
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  changed_.notify_all();
  for (auto& worker : workers_) worker.join();
  workers_.clear();
  if (failure_) std::rethrow_exception(failure_);
}

void ThreadedSink::fail(std::exception_ptr e) {
  stopped_.store(true);
  {
    std::lock_guard lock(mutex_);
    if (!failure_) failure_ = std::move(e);
  }
  changed_.notify_all();
}

// Every batch taken from the queue is delivered (or, once stopped, passed over) in its turn,
// so no worker waits for a batch that never comes.
void ThreadedSink::run() {
  for (;;) {
    Batch batch;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [this] { return !queue_.empty() || closed_; });
      if (queue_.empty()) return;  // closed and drained
      batch = std::move(queue_.front());
      queue_.pop_front();
    }
    changed_.notify_all();
    prepare(batch);
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return delivered_ == batch.number; });
    }
    deliver(batch);
    {
      std::lock_guard lock(mutex_);
      ++delivered_;
    }
    changed_.notify_all();
  }
}

void ThreadedSink::prepare(Batch& batch) {
  try {
    for (auto& item : batch.items) {
      if (stopped_.load(std::memory_order_relaxed)) return;
      if (!item.whole_value) item.prepared = consumer_.prepare(item.section, item.key, item.value, item.raw);
    }
  } catch (...) {
    fail(std::current_exception());
  }
}

void ThreadedSink::deliver(Batch& batch) {
  try {
    for (auto& item : batch.items) {
      if (stopped_.load(std::memory_order_relaxed)) return;  // drain without converting
      const bool go_on = item.whole_value
                             ? consumer_.on_value(item.section, std::move(item.value))
                             : consumer_.on_prepared(item.section, std::move(item.key), std::move(item.value), item.raw,
                                                     std::move(item.prepared));
      if (!go_on) stopped_.store(true);
    }
    if (text_done_ && !stopped_.load(std::memory_order_relaxed)) text_done_(batch.read_up_to);
  } catch (...) {
    fail(std::current_exception());
  }
}

}  // namespace ods::dbt::internal
