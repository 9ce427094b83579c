// The parse's fast path in runner pods on the real node (node_world.h; docs/kubernetes.md,
// "Nothing changed in a runner pod"): the chart upgraded with runner.packagesCache.hostPath,
// examples/shop (without the node test's slow model) on the in-cluster PostgreSQL (target pg) applied and run until a
// run builds nothing; the next run's pod restores the kept parse of the project's scope from the cache, takes the fast
// path and starts no dbt process (its log says so: no parse, no compile, the native probe, nothing built) and logs its
// wall and CPU seconds. The release is upgraded back without the cache afterwards. Shard `node`; runs as root,
// serially.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>

#include "node_world.h"

namespace ods::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr const char* kNamespace = "fast-shop";

class PodFastPathOnARealNode : public HostPathCacheTest {
 protected:
  PodFastPathOnARealNode() : HostPathCacheTest(kNamespace) {}
  // A DbtRun of project shop named `name`, waited for; its pod's log.
  std::string run_by_hand(const std::string& name) {
    EXPECT_EQ(w().apply("apiVersion: ods.dev/v1alpha1\nkind: DbtRun\nmetadata: {name: " + name +
                            "}\nspec: {projectRef: {name: shop}}\n",
                        kNamespace)
                  .exit_code,
              0);
    EXPECT_EQ(w().wait_run_finished(kNamespace, name), "Succeeded") << w().diagnostics(kNamespace);
    return pod_log(name);
  }
};

TEST_F(PodFastPathOnARealNode, ANothingChangedRunStartsNoDbtInItsPod) {
  use_host_path_cache("fast-path-cache");
  ASSERT_FALSE(HasFailure());
  auto secrets = create_shop_secrets(w(), kNamespace);
  ASSERT_TRUE(secrets) << secrets.error();
  ShopProjectOptions options;
  options.path = "examples/shop_steady";  // without node_test_slow, which builds every run
  ASSERT_EQ(
      w().apply(shop_project(w(), "shop", "", "{requests: {cpu: 100m, memory: 256Mi}, limits: {memory: 1Gi}}", options),
                kNamespace)
          .exit_code,
      0);
  std::vector<std::string> runs;
  ASSERT_TRUE(NodeWorld::wait(120s, [&] { return !(runs = w().runs_of(kNamespace, "shop")).empty(); }))
      << w().diagnostics(kNamespace);
  ASSERT_EQ(w().wait_run_finished(kNamespace, runs.front()), "Succeeded") << w().diagnostics(kNamespace);
  std::string steady;
  for (int i = 0; i < 3 && steady.find("dbt build not started") == std::string::npos; ++i)
    steady = run_by_hand("steady-" + std::to_string(i));
  ASSERT_NE(steady.find("dbt build not started"), std::string::npos) << steady;

  const std::string fast = run_by_hand("nothing-changed");
  EXPECT_NE(fast.find("kept parse restored from the cache"), std::string::npos) << fast;
  EXPECT_NE(fast.find("the kept parse stands, dbt not started"), std::string::npos) << fast;
  EXPECT_NE(fast.find(", 0 compiled"), std::string::npos) << fast;
  EXPECT_NE(fast.find("native probe, no dbt process"), std::string::npos) << fast;
  EXPECT_NE(fast.find("dbt build not started"), std::string::npos) << fast;
  EXPECT_EQ(fast.find("(dbt parse)"), std::string::npos) << fast;
  EXPECT_EQ(fast.find("(dbt compile)"), std::string::npos) << fast;
  const auto at = fast.find("pod time: ");
  ASSERT_NE(at, std::string::npos) << fast;
  std::cout << "[pod fast path] examples/shop, nothing changed: " << fast.substr(at, fast.find('\n', at) - at) << "\n";
}

}  // namespace
}  // namespace ods::testing
