// LeaderElector's expiry rule with an injected clock and an in-memory Lease store (a fake Client:
// unit test of the elector only; tests/kube/leader_election_test.cc runs it on a real Lease).
// A held Lease is taken only after it stayed unchanged for its leaseDurationSeconds on the
// candidate's own clock, whatever times the record carries.
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

#include "harness/eventually.h"
#include "ods/kube/leader_election.h"

namespace ods::kube {
namespace {

// Leases in memory with resourceVersion compare-and-swap, as the API server keeps them.
class LeaseStore final : public Client {
 public:
  void put(const ObjectKey& key, Json lease) {
    std::lock_guard lock(mutex_);
    lease["metadata"]["resourceVersion"] = std::to_string(++version_);
    leases_[key.str()] = std::move(lease);
  }
  Json spec(const ObjectKey& key) {
    std::lock_guard lock(mutex_);
    return leases_.at(key.str())["spec"];
  }

  // While down, every call fails as Unreachable.
  void set_down(bool down) { down_ = down; }

  ApiResult<Json> get(const Resource&, const ObjectKey& key) override {
    if (down_) return std::unexpected(ApiError{0, "Unreachable", "the API server is down"});
    std::lock_guard lock(mutex_);
    auto it = leases_.find(key.str());
    if (it == leases_.end()) return std::unexpected(ApiError{404, "NotFound", "no lease " + key.str()});
    return it->second;
  }
  ApiResult<std::optional<Json>> find(const Resource& r, const ObjectKey& key) override {
    auto got = get(r, key);
    if (got) return std::optional<Json>(*got);
    if (!got.error().not_found()) return std::unexpected(got.error());
    return std::optional<Json>();
  }
  ApiResult<Json> create(const Resource&, const std::string& ns, const Json& object) override {
    const ObjectKey key{ns, object["metadata"]["name"]};
    std::lock_guard lock(mutex_);
    if (leases_.contains(key.str())) return std::unexpected(ApiError{409, "AlreadyExists", key.str()});
    Json stored = object;
    stored["metadata"]["resourceVersion"] = std::to_string(++version_);
    return leases_[key.str()] = stored;
  }
  ApiResult<Json> replace(const Resource&, const ObjectKey& key, const Json& object, Subresource) override {
    if (down_) return std::unexpected(ApiError{0, "Unreachable", "the API server is down"});
    std::lock_guard lock(mutex_);
    auto it = leases_.find(key.str());
    if (it == leases_.end()) return std::unexpected(ApiError{404, "NotFound", key.str()});
    if (it->second["metadata"]["resourceVersion"] != object["metadata"]["resourceVersion"])
      return std::unexpected(ApiError{409, "Conflict", key.str()});
    Json stored = object;
    stored["metadata"]["resourceVersion"] = std::to_string(++version_);
    return it->second = stored;
  }
  ApiResult<Json> list(const Resource&, const std::string&, const ListOptions&) override { return unsupported(); }
  ApiResult<Json> merge_patch(const Resource&, const ObjectKey&, const Json&, Subresource) override {
    return unsupported();
  }
  ApiResult<Json> apply(const Resource&, const ObjectKey&, const Json&, const std::string&, Subresource) override {
    return unsupported();
  }
  ApiResult<bool> remove(const Resource&, const ObjectKey&) override { return std::unexpected(ApiError{}); }
  ApiResult<std::unique_ptr<WatchStream>> watch(const Resource&, const std::string&, const WatchOptions&) override {
    return std::unexpected(ApiError{});
  }

 private:
  static std::unexpected<ApiError> unsupported() { return std::unexpected(ApiError{0, "Unsupported", ""}); }
  std::mutex mutex_;
  std::map<std::string, Json> leases_;
  int version_ = 0;
  std::atomic<bool> down_{false};
};

class FakeClock {
 public:
  std::chrono::steady_clock::time_point now() const { return start_ + offset_.load() * std::chrono::milliseconds(1); }
  void advance(std::chrono::milliseconds by) { offset_ += by.count(); }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::atomic<long> offset_{0};
};

// Lets the elector make 5 more attempts (its loop retries every 5 ms of real time), whatever
// the machine's load; for checks that something did not happen.
void let_it_poll(const LeaderElector& elector) {
  const std::uint64_t target = elector.attempts() + 5;
  ASSERT_TRUE(ods::testing::eventually(std::chrono::seconds(30), [&] { return elector.attempts() >= target; }))
      << "the elector made " << elector.attempts() << " attempts, waited for " << target;
}

// For checks that something happens: polls up to 30 s of real time.
bool soon(const std::function<bool()>& done) { return ods::testing::eventually(std::chrono::seconds(30), done); }

TEST(LeaderElectionClockTest, AHeldLeaseIsTakenOnlyAfterItsDurationUnchangedOnTheCandidatesClock) {
  LeaseStore store;
  const ObjectKey key{"ods", "lease"};
  // Held by a replica whose clock is a day behind: its renewTime says nothing to the candidate.
  store.put(key, {{"metadata", {{"name", "lease"}, {"namespace", "ods"}}},
                  {"spec",
                   {{"holderIdentity", "other"},
                    {"leaseDurationSeconds", 15},
                    {"renewTime", "2000-01-01T00:00:00.000000Z"},
                    {"leaseTransitions", 4}}}});
  FakeClock clock;
  std::atomic<int> started{0};
  LeaderElectionOptions options;
  options.lease = key;
  options.identity = "me";
  options.retry_period = std::chrono::milliseconds(5);
  options.clock = [&] { return clock.now(); };
  LeaderElector elector(store, options, {[&] { ++started; }, {}});
  elector.start();
  let_it_poll(elector);
  EXPECT_EQ(elector.observed_holder(), "other");
  clock.advance(std::chrono::seconds(14));
  let_it_poll(elector);
  EXPECT_EQ(started, 0) << "taken before the lease duration passed";
  EXPECT_FALSE(elector.is_leader());

  // The holder renews: the candidate's wait starts over.
  Json renewed = store.spec(key);
  renewed["renewTime"] = "2000-01-01T00:00:14.000000Z";
  store.put(key, {{"metadata", {{"name", "lease"}, {"namespace", "ods"}}}, {"spec", renewed}});
  let_it_poll(elector);
  clock.advance(std::chrono::seconds(14));
  let_it_poll(elector);
  EXPECT_EQ(started, 0) << "a renewed lease counted as expired";

  clock.advance(std::chrono::seconds(2));
  ASSERT_TRUE(soon([&] { return started == 1; })) << elector.last_error();
  EXPECT_TRUE(elector.is_leader());
  const Json spec = store.spec(key);
  EXPECT_EQ(spec["holderIdentity"], "me");
  EXPECT_EQ(spec["leaseTransitions"], 5);
  EXPECT_EQ(spec["leaseDurationSeconds"], 15);
  elector.stop();
  EXPECT_EQ(store.spec(key)["holderIdentity"], "") << "a clean stop releases";
  EXPECT_EQ(store.spec(key)["leaseDurationSeconds"], 1);
}

TEST(LeaderElectionClockTest, ALeaderThatCannotRenewStopsAtTheRenewDeadline) {
  LeaseStore store;
  FakeClock clock;
  std::atomic<int> started{0};
  std::atomic<int> stopped{0};
  LeaderElectionOptions options;
  options.lease = {"ods", "lease"};
  options.identity = "me";
  options.retry_period = std::chrono::milliseconds(5);
  options.clock = [&] { return clock.now(); };
  LeaderElector elector(store, options, {[&] { ++started; }, [&] { ++stopped; }});
  elector.start();
  ASSERT_TRUE(soon([&] { return started == 1; })) << elector.last_error();
  store.set_down(true);
  let_it_poll(elector);
  clock.advance(std::chrono::milliseconds(9900));
  let_it_poll(elector);
  EXPECT_EQ(stopped, 0) << "stopped before the renew deadline (10 s)";
  EXPECT_TRUE(elector.is_leader());
  clock.advance(std::chrono::milliseconds(200));
  EXPECT_FALSE(elector.is_leader()) << "is_leader() turns false at the deadline by itself";
  ASSERT_TRUE(soon([&] { return stopped == 1; }));
  EXPECT_NE(elector.last_error().find("the API server is down"), std::string::npos) << elector.last_error();
  elector.stop();
}

TEST(LeaderElectionClockTest, ALeaderThatSeesAnotherHolderStopsAtOnce) {
  LeaseStore store;
  const ObjectKey key{"ods", "lease"};
  FakeClock clock;
  std::atomic<int> started{0};
  std::atomic<int> stopped{0};
  LeaderElectionOptions options;
  options.lease = key;
  options.identity = "me";
  options.retry_period = std::chrono::milliseconds(5);
  options.clock = [&] { return clock.now(); };
  LeaderElector elector(store, options, {[&] { ++started; }, [&] { ++stopped; }});
  elector.start();
  ASSERT_TRUE(soon([&] { return started == 1; })) << elector.last_error();
  // Another writer takes the Lease behind the leader's back (an operator edits it): the leader's
  // renewal fails and it stops leading at once, without waiting for its deadline.
  Json taken = store.spec(key);
  taken["holderIdentity"] = "intruder";
  store.put(key, {{"metadata", {{"name", "lease"}, {"namespace", "ods"}}}, {"spec", taken}});
  ASSERT_TRUE(soon([&] { return stopped == 1; }));
  EXPECT_FALSE(elector.is_leader());
  elector.stop();
  EXPECT_EQ(store.spec(key)["holderIdentity"], "intruder") << "a replica releases only its own Lease";
}

}  // namespace
}  // namespace ods::kube
