// What only a real cluster can show, on the real node (node_world.h) with the chart installed:
// the leader's pod deleted in the middle of a run (the other replica takes the Lease, the run is
// recorded once); a runner pod killed by its memory limit (the run fails with OOMKilled); a
// Secret the runner pod needs missing (the kubelet's reason in the DbtRun); the kubelet restarted
// while a run builds (the run finishes, recorded once); a drain of the node that honours the
// chart's PodDisruptionBudget (one replica is evicted, the last one is not).
// Shard `node`; runs as root, serially.
#include <gtest/gtest.h>

#include <iostream>

#include "node_world.h"

namespace ods::testing {
namespace {

using namespace std::chrono_literals;

class RealClusterFailures : public InstalledOperatorTest {
 protected:
  void SetUp() override {
    InstalledOperatorTest::SetUp();
    if (HasFatalFailure()) return;
    ASSERT_TRUE(NodeWorld::wait(180s, [&] {
      return w().jsonpath({"deployment", "ods", "-n", "ods-system"}, "{.status.readyReplicas}") == "2";
    })) << w().diagnostics("ods-system");
  }
  // Applies examples/shop as project `name` in namespace `ns` (with its Secrets) and returns its
  // first run's name ("" if none came).
  std::string first_run_of(const std::string& ns, const std::string& project_yaml) {
    auto secrets = create_shop_secrets(w(), ns);
    EXPECT_TRUE(secrets) << secrets.error();
    EXPECT_EQ(w().apply(project_yaml, ns).exit_code, 0);
    std::vector<std::string> runs;
    (void)NodeWorld::wait(120s, [&] { return !(runs = w().runs_of(ns, "shop")).empty(); });
    return runs.empty() ? "" : runs.front();
  }
  std::string lease_holder() {
    return w().jsonpath({"lease", "ods-leader", "-n", "ods-system"}, "{.spec.holderIdentity}");
  }
  std::string status(const std::string& ns, const std::string& run, const std::string& field) {
    return w().jsonpath({"dbtrun", run, "-n", ns}, "{.status." + field + "}");
  }
};

TEST_F(RealClusterFailures, TheLeadersPodDeletedMidRunHandsTheLeaseOverAndTheRunIsRecordedOnce) {
  const std::string run = first_run_of(
      "failover", shop_project(w(), "shop", "", "{requests: {cpu: 100m, memory: 256Mi}, limits: {memory: 1Gi}}",
                               {.profile = "shop-dbt-profile", .digest_key = "shop-digest-key", .slow_seconds = 40}));
  ASSERT_FALSE(run.empty()) << w().diagnostics("failover");
  ASSERT_TRUE(NodeWorld::wait(240s, [&] {
    const std::string phase = w().run_phase("failover", run);
    return phase == "Compiling" || phase == "Planning" || phase == "Building";
  })) << w().diagnostics("failover");
  const std::string leader = lease_holder();
  ASSERT_FALSE(leader.empty());
  const auto deleted_at = std::chrono::steady_clock::now();
  ASSERT_EQ(w().kubectl({"delete", "pod", leader, "-n", "ods-system", "--wait=false"}).exit_code, 0);
  std::string next;
  ASSERT_TRUE(NodeWorld::wait(120s, [&] {
    next = lease_holder();
    return !next.empty() && next != leader;
  })) << w().diagnostics("ods-system");
  std::cout
      << "failover: the Lease moved from " << leader << " to " << next << " "
      << std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - deleted_at).count()
      << " ms after the leader's pod was deleted" << std::endl;
  ASSERT_EQ(w().wait_run_finished("failover", run), "Succeeded") << w().diagnostics("failover");
  const std::string uid = w().jsonpath({"dbtrun", run, "-n", "failover"}, "{.metadata.uid}");
  EXPECT_EQ(w().psql("ods", "select count(*) from runs where run_id = '" + uid + "'").output, "1\n");
  EXPECT_EQ(w().kubectl({"delete", "namespace", "failover", "--wait=false"}).exit_code, 0);
}

TEST_F(RealClusterFailures, ARunnerPodKilledByItsMemoryLimitFailsTheRunWithOOMKilled) {
  const std::string run = first_run_of(
      "oom", shop_project(w(), "shop", "", "{requests: {cpu: 100m, memory: 48Mi}, limits: {memory: 48Mi}}"));
  ASSERT_FALSE(run.empty()) << w().diagnostics("oom");
  ASSERT_EQ(w().wait_run_finished("oom", run, 300s), "Failed") << w().diagnostics("oom");
  EXPECT_EQ(status("oom", run, "reason"), "OOMKilled") << w().diagnostics("oom");
  EXPECT_NE(status("oom", run, "message").find("limit 48Mi"), std::string::npos) << status("oom", run, "message");
  EXPECT_EQ(w().kubectl({"delete", "namespace", "oom", "--wait=false"}).exit_code, 0);
}

TEST_F(RealClusterFailures, AMissingSecretShowsTheKubeletsReasonInThePendingRun) {
  // The digest key reaches the pod as an env secretKeyRef: the kubelet cannot create the container.
  const std::string run = first_run_of(
      "nosecret", shop_project(w(), "shop", "", "{requests: {cpu: 100m, memory: 256Mi}, limits: {memory: 1Gi}}",
                               {.profile = "shop-dbt-profile", .digest_key = "not-created-yet", .slow_seconds = 0}));
  ASSERT_FALSE(run.empty()) << w().diagnostics("nosecret");
  EXPECT_TRUE(NodeWorld::wait(180s, [&] { return status("nosecret", run, "reason") == "CreateContainerConfigError"; }))
      << w().diagnostics("nosecret");
  EXPECT_EQ(w().run_phase("nosecret", run), "Pending");
  EXPECT_NE(status("nosecret", run, "message").find("\"not-created-yet\" not found"), std::string::npos)
      << status("nosecret", run, "message");
  // Created, the pod starts and the run finishes.
  EXPECT_EQ(w().kubectl({"create", "secret", "generic", "not-created-yet", "-n", "nosecret",
                         "--from-literal=digest-key=node-late-digest-key-0123456789"})
                .exit_code,
            0);
  EXPECT_EQ(w().wait_run_finished("nosecret", run), "Succeeded") << w().diagnostics("nosecret");
  EXPECT_EQ(w().kubectl({"delete", "namespace", "nosecret", "--wait=false"}).exit_code, 0);
}

TEST_F(RealClusterFailures, TheKubeletRestartedMidRunLeavesTheRunToFinishOnce) {
  const std::string run =
      first_run_of("kubelet-restart",
                   shop_project(w(), "shop", "", "{requests: {cpu: 100m, memory: 256Mi}, limits: {memory: 1Gi}}",
                                {.profile = "shop-dbt-profile", .digest_key = "shop-digest-key", .slow_seconds = 40}));
  ASSERT_FALSE(run.empty()) << w().diagnostics("kubelet-restart");
  ASSERT_TRUE(NodeWorld::wait(240s, [&] { return w().run_phase("kubelet-restart", run) == "Building"; }))
      << w().diagnostics("kubelet-restart");
  auto restarted = w().node().restart_kubelet();
  ASSERT_TRUE(restarted) << restarted.error();
  EXPECT_TRUE(NodeWorld::wait(120s, [&] {
    return w().jsonpath({"node", w().node().name()}, "{.status.conditions[?(@.type==\"Ready\")].status}") == "True";
  })) << w().node().logs_tail();
  ASSERT_EQ(w().wait_run_finished("kubelet-restart", run), "Succeeded") << w().diagnostics("kubelet-restart");
  // The runner's container was not restarted (the kubelet found it running), and the run was
  // recorded once.
  EXPECT_EQ(w().jsonpath({"pods", "-n", "kubelet-restart", "-l", "job-name=" + run},
                         "{.items[*].status.containerStatuses[0].restartCount}"),
            "0");
  const std::string uid = w().jsonpath({"dbtrun", run, "-n", "kubelet-restart"}, "{.metadata.uid}");
  EXPECT_EQ(w().psql("ods", "select count(*) from runs where run_id = '" + uid + "'").output, "1\n");
  EXPECT_EQ(w().kubectl({"delete", "namespace", "kubelet-restart", "--wait=false"}).exit_code, 0);
}

// Last: it disrupts the operator. A drain evicts through the Eviction API, which the chart's
// PodDisruptionBudget (minAvailable 1) refuses for the last ready replica: on one cordoned node
// the evicted replica's successor cannot be scheduled, so one replica keeps running (and leading)
// and the drain gives up; uncordoned, the Deployment is whole again.
TEST_F(RealClusterFailures, ADrainHonoursThePodDisruptionBudget) {
  const std::string node = w().node().name();
  ProcessResult drained = w().kubectl({"drain", node, "--pod-selector=app.kubernetes.io/instance=ods",
                                       "--delete-emptydir-data", "--ignore-daemonsets", "--timeout=40s"});
  EXPECT_NE(drained.exit_code, 0) << "the drain evicted every replica:\n" << drained.output << drained.errors;
  EXPECT_NE((drained.output + drained.errors).find("disruption budget"), std::string::npos)
      << drained.output << drained.errors;
  EXPECT_EQ(w().jsonpath({"pods", "-n", "ods-system", "-l", "app.kubernetes.io/instance=ods",
                          "--field-selector=status.phase=Running"},
                         "{.items[*].metadata.name}")
                .find(' '),
            std::string::npos)
      << "not exactly one replica left running";
  EXPECT_TRUE(NodeWorld::wait(60s, [&] { return !lease_holder().empty(); }));
  EXPECT_EQ(w().kubectl({"uncordon", node}).exit_code, 0);
  EXPECT_TRUE(NodeWorld::wait(180s, [&] {
    return w().jsonpath({"deployment", "ods", "-n", "ods-system"}, "{.status.readyReplicas}") == "2";
  })) << w().diagnostics("ods-system");
}

}  // namespace
}  // namespace ods::testing
