#pragma once
// Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection does it, so
// that of several operator replicas exactly one acts:
// - a candidate takes the Lease when it is missing (create), released (empty holderIdentity) or
//   expired: its record (holder, renewTime, …) has not changed for the record's
//   leaseDurationSeconds as this replica observed it (its own clock, so clock skew between
//   replicas does not matter);
// - the leader renews every retry_period by PUT with the Lease's resourceVersion (a concurrent
//   writer gets 409 and loses); when no renewal succeeded for renew_deadline, or the Lease names
//   another holder, it stops leading (on_stopped_leading), then competes again as a candidate;
// - stop() stops leading first (on_stopped_leading), then, with release_on_stop, releases the
//   Lease (holderIdentity empty, leaseDurationSeconds 1) so another replica takes over at once.
// Safety: renew_deadline < lease_duration; a replica stops leading (renew_deadline after its
// last successful renewal began) before any other may take the Lease (lease_duration after it
// saw that renewal). is_leader() turns false at the deadline even while a request hangs.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "ods/base/clock.h"
#include "ods/kube/client.h"

namespace ods::kube {

struct LeaderElectionOptions {
  ObjectKey lease;       // namespace/name of the Lease
  std::string identity;  // unique per replica, e.g. pod name + random suffix
  std::chrono::milliseconds lease_duration{std::chrono::seconds(15)};  // rounded up to whole seconds
  std::chrono::milliseconds renew_deadline{std::chrono::seconds(10)};
  std::chrono::milliseconds retry_period{std::chrono::seconds(2)};
  bool release_on_stop = true;  // false: stop() just stops renewing (as a killed replica would)
  // Decisions (expiry, deadlines); default steady_clock::now.
  std::function<std::chrono::steady_clock::time_point()> clock;
  // acquireTime / renewTime written into the Lease; never null, outlives the elector.
  const Clock* wall_clock = &system_clock();
};

struct LeaderCallbacks {
  // Both run on the elector's thread and must return promptly (start or stop work elsewhere).
  std::function<void()> on_started_leading;
  std::function<void()> on_stopped_leading;
};

class LeaderElector {
 public:
  // `client` must outlive the elector.
  LeaderElector(Client& client, LeaderElectionOptions options, LeaderCallbacks callbacks);
  ~LeaderElector();  // stop()
  LeaderElector(const LeaderElector&) = delete;
  LeaderElector& operator=(const LeaderElector&) = delete;

  // Starts competing on the elector's thread (once).
  void start();
  // Stops competing: on_stopped_leading when leading, then the release (release_on_stop); joins.
  void stop();

  // Leading, and the last successful renewal began less than renew_deadline ago.
  bool is_leader() const;
  // The holder this replica saw last ("" when none).
  std::string observed_holder() const;
  // The last error talking to the API server ("" when none).
  std::string last_error() const;
  // Attempts to create, take or renew the Lease completed so far (one each retry_period): the
  // elector's tick, so a test shows that something did not happen over k attempts by waiting
  // for the count, not by sleeping.
  std::uint64_t attempts() const { return attempts_; }

 private:
  void run();
  // One attempt to create, take or renew the Lease; true when this replica holds it now.
  bool try_acquire_or_renew();
  void release();
  void lead();
  // Waits `duration` or until stop(); false when stopping.
  bool wait(std::chrono::milliseconds duration);
  std::chrono::steady_clock::time_point now() const;
  Json record(const Json& old_spec) const;

  Client& client_;
  LeaderElectionOptions options_;
  LeaderCallbacks callbacks_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool leading_ = false;
  std::chrono::steady_clock::time_point renewed_at_{};  // when the last successful renewal began
  Json observed_spec_;
  std::chrono::steady_clock::time_point observed_at_{};
  std::string last_error_;
  std::atomic<std::uint64_t> attempts_{0};
  std::thread thread_;
};

// RFC 3339 with microseconds, as metav1.MicroTime: 2026-11-30T02:25:20.123456Z
std::string micro_time(std::chrono::system_clock::time_point time);

}  // namespace ods::kube
