// Leader election on a real Lease: two electors, one leader at a time; a leader that dies (stops
// renewing without releasing) hands over once the Lease expires; a clean stop hands over at once.
#include "ods/kube/leader_election.h"

#include <gtest/gtest.h>

#include <atomic>

#include "kube/kube_client_fixture.h"

namespace ods::testing {
namespace {

using kube::LeaderCallbacks;
using kube::LeaderElectionOptions;
using kube::LeaderElector;

// Who leads, checked from the callbacks: a second on_started_leading while someone leads is a
// violation.
struct Leadership {
  std::atomic<int> leaders{0};
  std::atomic<int> violations{0};
  std::atomic<int> starts{0};
  std::mutex mutex;
  std::string current;

  LeaderCallbacks callbacks_for(const std::string& identity) {
    return {[this, identity] {
              if (leaders.fetch_add(1) != 0) ++violations;
              ++starts;
              std::lock_guard lock(mutex);
              current = identity;
            },
            [this] {
              leaders.fetch_sub(1);
              std::lock_guard lock(mutex);
              current.clear();
            }};
  }
  std::string leader() {
    std::lock_guard lock(mutex);
    return current;
  }
};

class KubeLeaderElectionTest : public KubeClientTest {
 protected:
  static LeaderElectionOptions options(const std::string& ns, const std::string& identity, bool release_on_stop) {
    LeaderElectionOptions o;
    o.lease = {ns, "ods-operator"};
    o.identity = identity;
    o.lease_duration = std::chrono::seconds(3);
    o.renew_deadline = std::chrono::seconds(2);
    o.retry_period = std::chrono::milliseconds(250);
    o.release_on_stop = release_on_stop;
    return o;
  }
  static Json lease_spec(const std::string& ns) {
    auto lease = client().get(kube::resources::kLeases, {ns, "ods-operator"});
    EXPECT_TRUE(lease) << lease.error().message;
    return lease ? (*lease)["spec"] : Json();
  }
};

TEST_F(KubeLeaderElectionTest, OneLeaderAndAKilledLeaderHandsOverAfterTheLease) {
  const std::string ns = make_namespace("election");
  Leadership leadership;
  auto a =
      std::make_unique<LeaderElector>(client(), options(ns, "replica-a", false), leadership.callbacks_for("replica-a"));
  LeaderElector b(client(), options(ns, "replica-b", false), leadership.callbacks_for("replica-b"));
  a->start();
  ASSERT_TRUE(eventually([&] { return leadership.leader() == "replica-a"; })) << a->last_error();
  b.start();
  // b competes for several lease durations while a renews: a stays the only leader. 24 attempts
  // of b, each at least a retry period (250 ms) apart, span 6 s: two lease durations.
  const std::uint64_t b_attempts = b.attempts();
  ASSERT_TRUE(eventually([&] { return b.attempts() >= b_attempts + 24; }, std::chrono::seconds(120)))
      << "b made " << b.attempts() - b_attempts << " attempts: " << b.last_error();
  EXPECT_EQ(leadership.leader(), "replica-a");
  EXPECT_TRUE(a->is_leader());
  EXPECT_FALSE(b.is_leader());
  EXPECT_EQ(b.observed_holder(), "replica-a");
  EXPECT_EQ(lease_spec(ns)["holderIdentity"], "replica-a");
  EXPECT_EQ(lease_spec(ns)["leaseDurationSeconds"], 3);

  // a dies: it stops renewing and does not release. b takes over once the lease expired.
  const auto killed_at = std::chrono::steady_clock::now();
  a->stop();
  ASSERT_TRUE(eventually([&] { return leadership.leader() == "replica-b"; })) << b.last_error();
  EXPECT_GE(std::chrono::steady_clock::now() - killed_at, std::chrono::seconds(2))
      << "b took a lease that had not expired";
  EXPECT_TRUE(b.is_leader());
  const Json spec = lease_spec(ns);
  EXPECT_EQ(spec["holderIdentity"], "replica-b");
  EXPECT_EQ(spec["leaseTransitions"], 1);
  EXPECT_EQ(leadership.violations, 0);
  b.stop();
  EXPECT_EQ(leadership.leaders, 0);
}

TEST_F(KubeLeaderElectionTest, ACleanStopReleasesTheLeaseAndTheOtherTakesOverAtOnce) {
  const std::string ns = make_namespace("release");
  Leadership leadership;
  LeaderElectionOptions slow_a = options(ns, "replica-a", true);
  slow_a.lease_duration = std::chrono::seconds(30);  // only a release lets b in within the test
  slow_a.renew_deadline = std::chrono::seconds(20);
  LeaderElectionOptions slow_b = options(ns, "replica-b", true);
  slow_b.lease_duration = std::chrono::seconds(30);
  slow_b.renew_deadline = std::chrono::seconds(20);
  auto a = std::make_unique<LeaderElector>(client(), slow_a, leadership.callbacks_for("replica-a"));
  LeaderElector b(client(), slow_b, leadership.callbacks_for("replica-b"));
  a->start();
  ASSERT_TRUE(eventually([&] { return leadership.leader() == "replica-a"; })) << a->last_error();
  b.start();
  ASSERT_TRUE(eventually([&] { return b.observed_holder() == "replica-a"; })) << b.last_error();
  a->stop();
  EXPECT_NE(lease_spec(ns)["holderIdentity"], "replica-a") << "a released the Lease (b may hold it already)";
  ASSERT_TRUE(eventually([&] { return leadership.leader() == "replica-b"; }, std::chrono::seconds(10)))
      << "b did not take the released Lease (lease duration 30 s): " << b.last_error();
  EXPECT_EQ(leadership.violations, 0);
  EXPECT_EQ(leadership.starts, 2);
  b.stop();
}

TEST_F(KubeLeaderElectionTest, ManyElectorsOneLeaderAtATime) {
  const std::string ns = make_namespace("crowd");
  Leadership leadership;
  std::vector<std::unique_ptr<LeaderElector>> electors;
  std::vector<std::string> identities;
  for (int i = 0; i < 4; ++i) {
    const std::string identity = "replica-" + std::to_string(i);
    identities.push_back(identity);
    electors.push_back(
        std::make_unique<LeaderElector>(client(), options(ns, identity, true), leadership.callbacks_for(identity)));
  }
  for (auto& elector : electors) elector->start();
  // Stop the leader three times over; each time another one takes over.
  for (int round = 0; round < 3; ++round) {
    ASSERT_TRUE(eventually([&] { return !leadership.leader().empty(); }));
    const std::string leader = leadership.leader();
    for (std::size_t i = 0; i < electors.size(); ++i)
      if (identities[i] == leader) electors[i].reset();
    ASSERT_TRUE(eventually([&] { return !leadership.leader().empty() && leadership.leader() != leader; }))
        << "round " << round;
  }
  EXPECT_EQ(leadership.violations, 0);
  electors.clear();
  EXPECT_EQ(leadership.leaders, 0);
}

}  // namespace
}  // namespace ods::testing
