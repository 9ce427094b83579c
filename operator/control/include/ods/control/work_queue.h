#pragma once
// The work queue of a controller (client-go's rate-limited delaying queue): keys "namespace/name".
//
// - A key is queued once however often it is added before a worker takes it.
// - A key a worker is processing (between get() and done()) is not handed to a second worker; an
//   add() meanwhile marks it dirty and it is queued again by done().
// - add_rate_limited() re-adds a key after a per-key exponential backoff (base_delay doubling up
//   to max_delay: 5 ms, 10 ms, … 1000 s), and no earlier than an overall token bucket allows
//   (overall_qps, burst: 10 a second after a burst of 100, as client-go's default controller
//   rate limiter); forget() clears the key's failures (after a success).
// - add_after() adds a key once the delay has passed (scheduled requeues); an earlier request
//   for the same key wins.
// - shutdown() wakes every waiting get(), which then answers nullopt; later adds are ignored.
// Time comes from the injected Clock, so a test moves it by hand; a blocked get() re-reads the
// clock at least every poll_interval. All members are thread-safe.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "ods/base/clock.h"

namespace ods::control {

class WorkQueue {
 public:
  struct Options {
    std::chrono::milliseconds base_delay{5};
    std::chrono::milliseconds max_delay{std::chrono::seconds(1000)};
    std::chrono::milliseconds poll_interval{200};
    double overall_qps = 10;
    int burst = 100;
  };

  explicit WorkQueue(Clock& clock = system_clock()) : WorkQueue(clock, Options{}) {}
  WorkQueue(Clock& clock, Options options) : clock_(clock), options_(options) {}

  // Queues `key` now (see the rules above).
  void add(const std::string& key);
  // Queues `key` once `delay` has passed; a delay <= 0 is add().
  void add_after(const std::string& key, std::chrono::milliseconds delay);
  // add_after() with the key's next backoff delay; counts a retry. Returns the delay chosen.
  std::chrono::milliseconds add_rate_limited(const std::string& key);
  // Clears the key's failure count (its next backoff starts at base_delay again).
  void forget(const std::string& key);
  // How many add_rate_limited() calls the key had since its last forget().
  int failures(const std::string& key) const;

  // The next key, blocking until one is queued; nullopt once shutdown() was called. The caller
  // owns the key until it calls done(key).
  std::optional<std::string> get();
  // get() without blocking: nullopt when no key is ready (or after shutdown).
  std::optional<std::string> try_get();
  // Ends the processing of `key` (requeues it if it was added meanwhile).
  void done(const std::string& key);

  void shutdown();
  bool shutting_down() const;

  // Metrics: keys queued and ready (not waiting, not processing); adds that queued a key;
  // rate-limited re-adds.
  std::size_t depth() const;
  std::uint64_t adds_total() const;
  std::uint64_t retries_total() const;

 private:
  void add_locked(const std::string& key);
  void promote_due_locked();
  std::optional<std::string> pop_locked();

  Clock& clock_;
  const Options options_;
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::string> queue_;
  std::set<std::string> dirty_;       // queued or to be requeued by done()
  std::set<std::string> processing_;  // handed to a worker
  std::map<std::string, TimePoint> waiting_;
  std::set<std::pair<TimePoint, std::string>> waiting_by_time_;
  std::map<std::string, int> failures_;
  bool bucket_started_ = false;  // the overall bucket starts full at its first use
  double tokens_ = 0;
  TimePoint tokens_at_{};
  std::uint64_t adds_total_ = 0;
  std::uint64_t retries_total_ = 0;
  bool shutting_down_ = false;
};

}  // namespace ods::control
