#include "ods/control/controller.h"

#include "ods/control/objects.h"

namespace ods::control {

void ReconcileCounters::reconciled(const std::string& controller, const std::string& result,
                                   std::chrono::nanoseconds duration) {
  std::lock_guard lock(mutex_);
  ++totals_[{controller, result}];
  durations_[controller] += duration;
}

std::uint64_t ReconcileCounters::total(const std::string& controller, const std::string& result) const {
  std::lock_guard lock(mutex_);
  const auto found = totals_.find({controller, result});
  return found == totals_.end() ? 0 : found->second;
}

std::chrono::nanoseconds ReconcileCounters::total_duration(const std::string& controller) const {
  std::lock_guard lock(mutex_);
  const auto found = durations_.find(controller);
  return found == durations_.end() ? std::chrono::nanoseconds::zero() : found->second;
}

Controller::~Controller() { stop(); }

void Controller::start() {
  if (!workers_.empty()) return;
  for (int i = 0; i < options_.workers; ++i) workers_.emplace_back([this] { work(); });
}

void Controller::stop() {
  queue_.shutdown();
  for (std::thread& worker : workers_) {
    if (worker.joinable()) worker.join();
  }
  workers_.clear();
}

void Controller::work() {
  while (auto key = queue_.get()) process(*key);
}

bool Controller::process_one() {
  auto key = queue_.try_get();
  if (!key) return false;
  process(*key);
  return true;
}

void Controller::process(const std::string& key) {
  const auto started = std::chrono::steady_clock::now();
  Result<ReconcileResult> result = fail("internal", "");
  try {  // a worker thread is an edge: nothing may escape it
    result = reconciler_.reconcile(parse_key(key));
  } catch (const std::exception& error) {
    result = fail("internal", "reconciling " + key + ": " + error.what());
  }
  const auto duration = std::chrono::steady_clock::now() - started;
  std::string label;
  if (!result) {
    label = "error";
    queue_.add_rate_limited(key);
    if (options_.on_error) options_.on_error(key, result.error());
  } else {
    queue_.forget(key);
    label = result->requeue_after ? "requeue_after" : "success";
    if (result->requeue_after) queue_.add_after(key, *result->requeue_after);
  }
  queue_.done(key);
  if (metrics_ != nullptr) metrics_->reconciled(options_.name, label, duration);
}

}  // namespace ods::control
