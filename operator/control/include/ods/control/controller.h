#pragma once
// The control loop: N worker threads take keys from a WorkQueue and call a Reconciler.
// - success: forget the key's failures; requeue_after set → add_after(key, requeue_after);
// - error: add_rate_limited(key) (exponential backoff) and report the error's message; an
//   exception thrown by the reconciler counts as an error (code "internal");
// Every reconcile is reported to the ReconcileMetrics with the controller's name, its result
// ("success", "requeue_after" or "error") and its duration, as controller-runtime's
// controller_runtime_reconcile_total / _errors_total / _time_seconds count them.
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ods/control/reconciler.h"
#include "ods/control/work_queue.h"

namespace ods::control {

class ReconcileMetrics {
 public:
  virtual ~ReconcileMetrics() = default;
  // One finished reconcile. Called from worker threads at once: implementations are thread-safe.
  virtual void reconciled(const std::string& controller, const std::string& result,
                          std::chrono::nanoseconds duration) = 0;
};

// ReconcileMetrics that keeps counts in memory (tests; a simple /metrics source).
class ReconcileCounters final : public ReconcileMetrics {
 public:
  void reconciled(const std::string& controller, const std::string& result, std::chrono::nanoseconds duration) override;
  std::uint64_t total(const std::string& controller, const std::string& result) const;
  std::chrono::nanoseconds total_duration(const std::string& controller) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, std::uint64_t> totals_;
  std::map<std::string, std::chrono::nanoseconds> durations_;
};

class Controller {
 public:
  struct Options {
    std::string name;  // "dbtproject", "dbtrun": the metrics' controller label
    int workers = 2;
    // Called with the key and the error of each failed reconcile (for the log); may be empty.
    std::function<void(const std::string& key, const Error& error)> on_error;
  };

  // queue, reconciler and metrics must outlive the controller; metrics may be null.
  Controller(Options options, WorkQueue& queue, Reconciler& reconciler, ReconcileMetrics* metrics)
      : options_(std::move(options)), queue_(queue), reconciler_(reconciler), metrics_(metrics) {}
  // Shuts the queue down and joins the workers.
  ~Controller();
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  // Starts the workers (once).
  void start();
  // Shuts the queue down and waits until every worker has finished its current reconcile.
  void stop();
  // Takes one key if one is ready and reconciles it on the calling thread; false when none was
  // ready. For tests that drive the loop step by step (no workers started).
  bool process_one();

 private:
  void work();
  void process(const std::string& key);

  const Options options_;
  WorkQueue& queue_;
  Reconciler& reconciler_;
  ReconcileMetrics* metrics_;
  std::vector<std::thread> workers_;
};

}  // namespace ods::control
