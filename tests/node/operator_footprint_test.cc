// The operator's footprint on the real node (node_world.h), for docs/benchmarks.md ("The operator
// on a real node"): with 10 and then 100 DbtProjects (suspended: no run starts) every project is
// reconciled (Ready=True, reason Suspended, at its generation) and the test prints the leader
// pod's resident memory (VmRSS of its PID 1, read with kubectl exec). Figures are printed, never
// asserted (ENGINEERING.md: timing and sizes belong to benchmarks). Shard `node`; root, serially.
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <regex>
#include <thread>
#include <utility>

#include "node_world.h"

namespace ods::testing {
namespace {

using namespace std::chrono_literals;

class OperatorFootprint : public InstalledOperatorTest {
 protected:
  std::string leader_rss() {
    const std::string leader = w().jsonpath({"lease", "ods-leader", "-n", "ods-system"}, "{.spec.holderIdentity}");
    const std::string status = w().kubectl({"exec", "-n", "ods-system", leader, "--", "cat", "/proc/1/status"}).output;
    std::smatch match;
    static const std::regex kRss("VmRSS:\\s+(\\d+) kB");
    return std::regex_search(status, match, kRss) ? match[1].str() : "";
  }
  // Projects footprint-0 … footprint-<count - 1>, all suspended.
  void apply_projects(int count) {
    std::string manifest;
    for (int i = 0; i < count; ++i) {
      manifest += shop_project(w(), "footprint-" + std::to_string(i), "  suspend: true\n") + "---\n";
    }
    ASSERT_EQ(w().apply(manifest, "footprint").exit_code, 0);
  }
  int reconciled() {
    const std::string reasons = w().jsonpath(
        {"dbtprojects", "-n", "footprint"}, "{range .items[*]}{.status.conditions[?(@.type==\"Ready\")].reason} {end}");
    int count = 0;
    for (std::size_t at = reasons.find("Suspended"); at != std::string::npos; at = reasons.find("Suspended", at + 1))
      ++count;
    return count;
  }
};

TEST_F(OperatorFootprint, TheLeadersResidentMemoryWithTenAndAHundredProjects) {
  auto secrets = create_shop_secrets(w(), "footprint");
  ASSERT_TRUE(secrets) << secrets.error();
  const std::string before = leader_rss();  // (kubectl runs before anything is in cout's buffer)
  std::cout << "footprint: the leader with no project of this namespace: VmRSS " << before << " kB" << std::endl;
  for (const int count : {10, 100}) {
    apply_projects(count);
    ASSERT_TRUE(NodeWorld::wait(300s, [&] { return reconciled() == count; }))
        << reconciled() << " of " << count << " projects reconciled\n"
        << w().diagnostics("footprint");
    // The informers' and reconcilers' allocations settle: VmRSS within 1% of itself 2 s before.
    std::string rss = leader_rss();
    const bool settled = NodeWorld::wait(120s, [&] {
      std::this_thread::sleep_for(2s);
      const std::string previous = std::exchange(rss, leader_rss());
      if (rss.empty() || previous.empty()) return false;
      return std::abs(std::stol(rss) - std::stol(previous)) * 100 <= std::stol(previous);
    });
    EXPECT_TRUE(settled) << "the leader's VmRSS still changes: " << rss << " kB";
    EXPECT_FALSE(rss.empty());
    std::cout << "footprint: the leader with " << count << " DbtProjects: VmRSS " << rss << " kB" << std::endl;
  }
  EXPECT_EQ(w().jsonpath({"dbtruns", "-n", "footprint"}, "{.items[*].metadata.name}"), "") << "a suspended project ran";
  EXPECT_EQ(w().kubectl({"delete", "namespace", "footprint", "--wait=false"}).exit_code, 0);
}

}  // namespace
}  // namespace ods::testing
