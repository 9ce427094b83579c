// The parse's fast path in runner pods on the real node (node_world.h; docs/kubernetes.md,
// "Nothing changed in a runner pod"): the chart upgraded with runner.packagesCache.hostPath,
// examples/shop on the in-cluster PostgreSQL (target pg) applied and run until a run builds
// nothing; the next run's pod restores the kept parse of the project's scope from the cache, takes
// the fast path and starts no dbt process (its log says so: no parse, no compile, the native probe,
// nothing built) and logs its wall and CPU seconds. The release is upgraded back without the cache
// afterwards. Shard `node`; runs as root, serially.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>

#include "node_world.h"

namespace ods::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr const char* kNamespace = "fast-shop";

class PodFastPathOnARealNode : public InstalledOperatorTest {
 protected:
  void TearDown() override {
    if (!shared_world()) return;
    (void)w().kubectl({"delete", "namespace", kNamespace, "--wait=false"});
    (void)w().helm({"upgrade", "ods", "helm/ods", "-n", "ods-system", "--reuse-values", "--wait", "--timeout", "5m",
                    "--set", "runner.packagesCache.hostPath="});
  }
  std::string pod_log(const std::string& run) {
    return w().kubectl({"logs", "-n", kNamespace, "-l", "ods.dev/run=" + run, "--tail=-1"}).output;
  }
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
  const fs::path cache = w().dir() / "fast-path-cache";
  fs::create_directories(cache);
  fs::permissions(cache, fs::perms::all | fs::perms::sticky_bit);
  ProcessResult upgraded = w().helm({"upgrade", "ods", "helm/ods", "-n", "ods-system", "--reuse-values", "--wait",
                                     "--timeout", "5m", "--set", "runner.packagesCache.hostPath=" + cache.string()});
  ASSERT_EQ(upgraded.exit_code, 0) << upgraded.output << upgraded.errors << w().diagnostics("ods-system");
  auto secrets = create_shop_secrets(w(), kNamespace);
  ASSERT_TRUE(secrets) << secrets.error();
  ASSERT_EQ(w().apply(shop_project(w(), "shop"), kNamespace).exit_code, 0);
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
