#include "ods/kube/leader_election.h"

#include <ctime>
#include <random>

namespace ods::kube {

namespace {

using std::chrono::milliseconds;

int whole_seconds(milliseconds duration) { return int((duration.count() + 999) / 1000); }

milliseconds jittered(milliseconds period) {
  thread_local std::mt19937 random(std::random_device{}());
  return period + milliseconds(std::uniform_int_distribution<long>(0, period.count() / 5)(random));
}

}  // namespace

std::string micro_time(std::chrono::system_clock::time_point time) {
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(time.time_since_epoch()).count();
  const std::time_t seconds = std::time_t(micros / 1000000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char text[96];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, long(micros % 1000000));
  return text;
}

LeaderElector::LeaderElector(Client& client, LeaderElectionOptions options, LeaderCallbacks callbacks)
    : client_(client), options_(std::move(options)), callbacks_(std::move(callbacks)) {
  if (!options_.clock) options_.clock = [] { return std::chrono::steady_clock::now(); };
}

LeaderElector::~LeaderElector() { stop(); }

void LeaderElector::start() {
  std::lock_guard lock(mutex_);
  if (thread_.joinable() || stopping_) return;
  thread_ = std::thread([this] { run(); });
}

void LeaderElector::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool LeaderElector::is_leader() const {
  std::lock_guard lock(mutex_);
  return leading_ && now() - renewed_at_ < options_.renew_deadline;
}

std::string LeaderElector::observed_holder() const {
  std::lock_guard lock(mutex_);
  return observed_spec_.is_object() ? observed_spec_.value("holderIdentity", "") : "";
}

std::string LeaderElector::last_error() const {
  std::lock_guard lock(mutex_);
  return last_error_;
}

std::chrono::steady_clock::time_point LeaderElector::now() const { return options_.clock(); }

bool LeaderElector::wait(milliseconds duration) {
  std::unique_lock lock(mutex_);
  return !wake_.wait_for(lock, duration, [this] { return stopping_; });
}

void LeaderElector::run() {
  for (;;) {
    const bool holds = try_acquire_or_renew();
    ++attempts_;
    if (holds) {
      lead();
      if (!wait(milliseconds(0))) return;  // stopping: lead() released the Lease
    }
    if (!wait(jittered(options_.retry_period))) return;
  }
}

void LeaderElector::lead() {
  {
    std::lock_guard lock(mutex_);
    leading_ = true;
  }
  if (callbacks_.on_started_leading) callbacks_.on_started_leading();
  bool stopping = false;
  for (;;) {
    std::chrono::steady_clock::time_point deadline;
    {
      std::lock_guard lock(mutex_);
      deadline = renewed_at_ + options_.renew_deadline;
    }
    const auto until_deadline = std::chrono::duration_cast<milliseconds>(deadline - now());
    if (!wait(std::max(milliseconds(0), std::min(options_.retry_period, until_deadline)))) {
      stopping = true;
      break;
    }
    if (now() >= deadline) break;  // no renewal succeeded for renew_deadline
    const bool renewed = try_acquire_or_renew();
    ++attempts_;
    if (!renewed && observed_holder() != options_.identity && !observed_holder().empty())
      break;  // someone else holds the Lease now (it was taken over or edited): stop at once
    if (now() >= deadline) {
      std::lock_guard lock(mutex_);
      if (renewed_at_ + options_.renew_deadline <= now()) break;
    }
  }
  {
    std::lock_guard lock(mutex_);
    leading_ = false;
  }
  if (callbacks_.on_stopped_leading) callbacks_.on_stopped_leading();
  if (stopping && options_.release_on_stop) release();
}

Json LeaderElector::record(const Json& old_spec) const {
  const bool mine = old_spec.is_object() && old_spec.value("holderIdentity", "") == options_.identity;
  const std::string time = micro_time(options_.wall_clock->now());
  Json spec = {{"holderIdentity", options_.identity},
               {"leaseDurationSeconds", whole_seconds(options_.lease_duration)},
               {"renewTime", time}};
  spec["acquireTime"] = mine ? old_spec.value("acquireTime", time) : time;
  const int transitions = old_spec.is_object() ? old_spec.value("leaseTransitions", 0) : 0;
  spec["leaseTransitions"] = mine || !old_spec.is_object() ? transitions : transitions + 1;
  return spec;
}

bool LeaderElector::try_acquire_or_renew() {
  const auto attempt_began = now();
  auto fail_with = [&](const ApiError& error) {
    std::lock_guard lock(mutex_);
    last_error_ = error.message;
    return false;
  };
  auto held = [&](const Json& spec) {
    std::lock_guard lock(mutex_);
    observed_spec_ = spec;
    observed_at_ = attempt_began;
    renewed_at_ = attempt_began;
    return true;
  };
  auto found = client_.find(resources::kLeases, options_.lease);
  if (!found) return fail_with(found.error());
  if (!found->has_value()) {
    const Json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                        {"kind", "Lease"},
                        {"metadata", {{"name", options_.lease.name}, {"namespace", options_.lease.namespace_name}}},
                        {"spec", record(Json())}};
    auto created = client_.create(resources::kLeases, options_.lease.namespace_name, lease);
    if (!created) return fail_with(created.error());
    return held(lease["spec"]);
  }
  Json lease = std::move(**found);
  const Json old_spec = lease.value("spec", Json::object());
  const std::string holder = old_spec.value("holderIdentity", "");
  {
    // Observed when the answer came (not when it was asked for): a renewal written while the
    // request was on its way must not look older than it is.
    const auto answered = now();
    std::lock_guard lock(mutex_);
    if (old_spec != observed_spec_) {
      observed_spec_ = old_spec;
      observed_at_ = answered;
    }
    const auto lease_seconds = std::chrono::seconds(old_spec.value("leaseDurationSeconds", 0));
    if (!holder.empty() && holder != options_.identity && observed_at_ + lease_seconds > answered) return false;
  }
  lease["spec"] = record(old_spec);
  auto replaced = client_.replace(resources::kLeases, options_.lease, lease);
  if (!replaced) return fail_with(replaced.error());
  return held(lease["spec"]);
}

void LeaderElector::release() {
  auto found = client_.find(resources::kLeases, options_.lease);
  if (!found || !found->has_value()) return;
  Json lease = std::move(**found);
  if (lease["spec"].value("holderIdentity", "") != options_.identity) return;
  lease["spec"]["holderIdentity"] = "";
  lease["spec"]["leaseDurationSeconds"] = 1;
  lease["spec"]["renewTime"] = micro_time(options_.wall_clock->now());
  if (auto replaced = client_.replace(resources::kLeases, options_.lease, lease); !replaced) {
    std::lock_guard lock(mutex_);
    last_error_ = replaced.error().message;
  }
}

}  // namespace ods::kube
