#include "ods/control/work_queue.h"

#include <algorithm>

namespace ods::control {

void WorkQueue::add(const std::string& key) {
  std::lock_guard lock(mutex_);
  add_locked(key);
}

void WorkQueue::add_locked(const std::string& key) {
  if (shutting_down_ || dirty_.contains(key)) return;
  dirty_.insert(key);
  ++adds_total_;
  if (processing_.contains(key)) return;  // done() queues it
  queue_.push_back(key);
  ready_.notify_one();
}

void WorkQueue::add_after(const std::string& key, std::chrono::milliseconds delay) {
  if (delay <= std::chrono::milliseconds::zero()) {
    add(key);
    return;
  }
  std::lock_guard lock(mutex_);
  if (shutting_down_) return;
  const TimePoint due = clock_.now() + delay;
  const auto found = waiting_.find(key);
  if (found != waiting_.end()) {
    if (found->second <= due) return;  // an earlier request wins
    waiting_by_time_.erase({found->second, key});
    found->second = due;
  } else {
    waiting_.emplace(key, due);
  }
  waiting_by_time_.emplace(due, key);
  ready_.notify_all();  // a waiting get() recomputes its deadline
}

std::chrono::milliseconds WorkQueue::add_rate_limited(const std::string& key) {
  std::chrono::milliseconds delay;
  {
    std::lock_guard lock(mutex_);
    const int failures = failures_[key]++;
    ++retries_total_;
    delay = options_.base_delay;
    for (int i = 0; i < failures && delay < options_.max_delay; ++i) delay *= 2;
    delay = std::min(delay, options_.max_delay);
    // The overall bucket: take a token (the count may go below zero: a reservation) and wait
    // until it would have been there.
    const TimePoint now = clock_.now();
    if (!bucket_started_) {
      bucket_started_ = true;
      tokens_ = options_.burst;
      tokens_at_ = now;
    }
    const double elapsed = std::chrono::duration<double>(now - tokens_at_).count();
    tokens_ = std::min<double>(options_.burst, tokens_ + elapsed * options_.overall_qps);
    tokens_at_ = now;
    tokens_ -= 1;
    if (tokens_ < 0) {
      const auto wait = std::chrono::duration<double>(-tokens_ / options_.overall_qps);
      delay = std::max(delay, std::chrono::ceil<std::chrono::milliseconds>(wait));
    }
  }
  add_after(key, delay);
  return delay;
}

void WorkQueue::forget(const std::string& key) {
  std::lock_guard lock(mutex_);
  failures_.erase(key);
}

int WorkQueue::failures(const std::string& key) const {
  std::lock_guard lock(mutex_);
  const auto found = failures_.find(key);
  return found == failures_.end() ? 0 : found->second;
}

void WorkQueue::promote_due_locked() {
  const TimePoint now = clock_.now();
  while (!waiting_by_time_.empty() && waiting_by_time_.begin()->first <= now) {
    const std::string key = waiting_by_time_.begin()->second;
    waiting_by_time_.erase(waiting_by_time_.begin());
    waiting_.erase(key);
    add_locked(key);
  }
}

std::optional<std::string> WorkQueue::pop_locked() {
  if (shutting_down_) return std::nullopt;
  promote_due_locked();
  if (queue_.empty()) return std::nullopt;
  std::string key = std::move(queue_.front());
  queue_.pop_front();
  dirty_.erase(key);
  processing_.insert(key);
  return key;
}

std::optional<std::string> WorkQueue::get() {
  std::unique_lock lock(mutex_);
  while (!shutting_down_) {
    if (auto key = pop_locked()) return key;
    if (waiting_by_time_.empty()) {
      ready_.wait(lock);
    } else {
      const auto until_due = waiting_by_time_.begin()->first - clock_.now();
      ready_.wait_for(lock, std::clamp<std::chrono::system_clock::duration>(until_due, std::chrono::milliseconds(1),
                                                                            options_.poll_interval));
    }
  }
  return std::nullopt;
}

std::optional<std::string> WorkQueue::try_get() {
  std::lock_guard lock(mutex_);
  return pop_locked();
}

void WorkQueue::done(const std::string& key) {
  std::lock_guard lock(mutex_);
  processing_.erase(key);
  if (dirty_.contains(key) && !shutting_down_) {
    queue_.push_back(key);
    ready_.notify_one();
  }
}

void WorkQueue::shutdown() {
  std::lock_guard lock(mutex_);
  shutting_down_ = true;
  ready_.notify_all();
}

bool WorkQueue::shutting_down() const {
  std::lock_guard lock(mutex_);
  return shutting_down_;
}

std::size_t WorkQueue::depth() const {
  std::lock_guard lock(mutex_);
  const TimePoint now = clock_.now();
  std::size_t due = 0;
  for (const auto& [time, key] : waiting_by_time_) {
    if (time > now) break;
    if (!dirty_.contains(key) && !processing_.contains(key)) ++due;
  }
  return queue_.size() + due;
}

std::uint64_t WorkQueue::adds_total() const {
  std::lock_guard lock(mutex_);
  return adds_total_;
}

std::uint64_t WorkQueue::retries_total() const {
  std::lock_guard lock(mutex_);
  return retries_total_;
}

}  // namespace ods::control
