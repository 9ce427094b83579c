// The packages cache on the real node (node_world.h; docs/kubernetes.md, "A packages cache"): the
// chart upgraded with runner.packagesCache.hostPath (a folder of this machine, mode 1777 as the doc
// says), examples/shop_packaged (examples/shop declaring a git package, helpers/ of the test
// repository) applied: its first run installs the package with dbt deps in the runner pod and
// saves it under <hostPath>/<namespace>/<key> (the kubelet makes the namespace's folder); a
// second run's pod restores it and runs no dbt deps. The release is upgraded back without the
// cache afterwards. Shard `node`; runs as root, serially.
#include <gtest/gtest.h>

#include <filesystem>

#include "node_world.h"

namespace ods::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr const char* kNamespace = "packages-shop";

class PackagesCacheOnARealNode : public HostPathCacheTest {
 protected:
  PackagesCacheOnARealNode() : HostPathCacheTest(kNamespace) {}
};

TEST_F(PackagesCacheOnARealNode, ASecondRunRestoresThePackagesFromTheHostPathWithoutDbtDeps) {
  const fs::path cache = use_host_path_cache("packages-cache");
  ASSERT_FALSE(HasFailure());
  auto secrets = create_shop_secrets(w(), kNamespace);
  ASSERT_TRUE(secrets) << secrets.error();
  ShopProjectOptions options;
  options.path = "examples/shop_packaged";
  // dbt deps clones the test repository itself: its URL with the credentials, and the server's CA
  // from the git Secret the pod has mounted anyway.
  options.env = {{"SHOP_HELPERS_GIT", w().git_url_with_credentials()}, {"GIT_SSL_CAINFO", "/var/run/ods/git/ca.crt"}};
  ASSERT_EQ(
      w().apply(shop_project(w(), "shop", "", "{requests: {cpu: 100m, memory: 256Mi}, limits: {memory: 1Gi}}", options),
                kNamespace)
          .exit_code,
      0);
  std::vector<std::string> runs;
  ASSERT_TRUE(NodeWorld::wait(120s, [&] { return !(runs = w().runs_of(kNamespace, "shop")).empty(); }))
      << w().diagnostics(kNamespace);
  ASSERT_EQ(w().wait_run_finished(kNamespace, runs.front()), "Succeeded") << w().diagnostics(kNamespace);
  const std::string first = pod_log(runs.front());
  const std::string saved = "packages saved to cache ";
  const auto at = first.find(saved);
  ASSERT_NE(at, std::string::npos) << first;
  const std::string key = first.substr(at + saved.size(), 64);
  EXPECT_NE(first.find("(dbt deps; not in the cache: " + key + ")"), std::string::npos) << first;
  EXPECT_TRUE(fs::exists(cache / kNamespace / key / "entry.json")) << "no entry under " << (cache / kNamespace);
  EXPECT_TRUE(fs::exists(cache / kNamespace / key / "dbt_packages" / "shop_helpers" / "macros" / "forty_two.sql"));

  ASSERT_EQ(w().apply("apiVersion: ods.dev/v1alpha1\nkind: DbtRun\nmetadata: {name: with-cached-packages}\n"
                      "spec: {projectRef: {name: shop}}\n",
                      kNamespace)
                .exit_code,
            0);
  ASSERT_EQ(w().wait_run_finished(kNamespace, "with-cached-packages"), "Succeeded") << w().diagnostics(kNamespace);
  const std::string second = pod_log("with-cached-packages");
  EXPECT_NE(second.find("packages restored from cache " + key), std::string::npos) << second;
  EXPECT_EQ(second.find("(dbt deps"), std::string::npos) << second;
}

}  // namespace
}  // namespace ods::testing
