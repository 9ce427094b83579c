// The chart installed as a platform team does, on the real node (node_world.h): `helm install
// --wait` of helm/ods with the project's own images and two replicas, the state store in the
// in-cluster PostgreSQL; examples/shop from the git server builds into the in-cluster warehouse;
// `helm upgrade` to a new image tag rolls the operator out while a run is in flight, and that
// run is recorded exactly once; `helm uninstall` leaves no operator pod, and no Job or pod
// without its owner (deleting the project then takes its runs, the one made by hand too since the
// operator adopted it, and their Jobs and pods with it).
// Shard `node`; runs as root, serially.
#include <gtest/gtest.h>

#include <iostream>
#include <sstream>

#include "node_world.h"

namespace ods::testing {
namespace {

using namespace std::chrono_literals;

constexpr const char* kNamespace = "chart-shop";

class ChartOnARealNode : public NodeWorldTest {};

TEST_F(ChartOnARealNode, InstallsWithTwoReadyReplicasRunsUpgradesMidRunAndUninstallsClean) {
  ASSERT_TRUE(create_operator_namespace(w()));
  std::vector<std::string> install{"install", "ods", "helm/ods", "-n", "ods-system", "--wait", "--timeout", "5m"};
  const auto images = w().chart_image_values();
  install.insert(install.end(), images.begin(), images.end());
  ProcessResult installed = w().helm(install);
  ASSERT_EQ(installed.exit_code, 0) << installed.output << installed.errors << w().diagnostics("ods-system");
  EXPECT_EQ(w().jsonpath({"deployment", "ods", "-n", "ods-system"}, "{.status.readyReplicas}"), "2");

  // examples/shop: the first run starts when the project is applied and builds every node.
  auto secrets = create_shop_secrets(w(), kNamespace);
  ASSERT_TRUE(secrets) << secrets.error();
  const auto applied_at = std::chrono::steady_clock::now();
  // node_test_slow keeps every run of this project in flight for 40 s (a rollout takes longer
  // than the rest of a run here).
  ProcessResult applied =
      w().apply(shop_project(w(), "shop", "", "{requests: {cpu: 100m, memory: 256Mi}, limits: {memory: 1Gi}}",
                             {.profile = "shop-dbt-profile", .digest_key = "shop-digest-key", .slow_seconds = 40}),
                kNamespace);
  ASSERT_EQ(applied.exit_code, 0) << applied.errors;
  std::vector<std::string> runs;
  ASSERT_TRUE(NodeWorld::wait(120s, [&] { return !(runs = w().runs_of(kNamespace, "shop")).empty(); }))
      << w().diagnostics(kNamespace);
  ASSERT_EQ(w().wait_run_finished(kNamespace, runs.front()), "Succeeded") << w().diagnostics(kNamespace);
  std::cout << "chart: from kubectl apply of the DbtProject to its first Succeeded run "
            << std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - applied_at).count()
            << " s (examples/shop into the in-cluster PostgreSQL, git fetch over HTTPS; 40 s of it node_test_slow)"
            << std::endl;
  EXPECT_NE(w().jsonpath({"dbtrun", runs.front(), "-n", kNamespace}, "{.status.plan.built}"), "0");

  // A run in flight while the operator rolls out to a new tag: it finishes and is recorded once.
  const std::string new_tag = w().operator_tag() + "-upgraded";
  auto tagged = w().node().tag_image(w().image("operator"), w().operator_repository() + ":" + new_tag);
  ASSERT_TRUE(tagged) << tagged.error();
  ASSERT_EQ(w().apply("apiVersion: ods.dev/v1alpha1\nkind: DbtRun\nmetadata: {name: during-upgrade}\n"
                      "spec: {projectRef: {name: shop}}\n",
                      kNamespace)
                .exit_code,
            0);
  ASSERT_TRUE(NodeWorld::wait(240s, [&] {
    const std::string phase = w().run_phase(kNamespace, "during-upgrade");
    return phase == "Compiling" || phase == "Planning" || phase == "Building";
  })) << w().diagnostics(kNamespace);
  ProcessResult upgraded = w().helm({"upgrade", "ods", "helm/ods", "-n", "ods-system", "--wait", "--timeout", "5m",
                                     "--reuse-values", "--set", "image.operator.tag=" + new_tag});
  ASSERT_EQ(upgraded.exit_code, 0) << upgraded.output << upgraded.errors << w().diagnostics("ods-system");
  EXPECT_EQ(w().jsonpath({"deployment", "ods", "-n", "ods-system"}, "{.spec.template.spec.containers[0].image}"),
            w().operator_repository() + ":" + new_tag);
  EXPECT_EQ(w().wait_run_finished(kNamespace, "during-upgrade"), "Succeeded") << w().diagnostics(kNamespace);
  const std::string uid = w().jsonpath({"dbtrun", "during-upgrade", "-n", kNamespace}, "{.metadata.uid}");
  ProcessResult recorded = w().psql("ods", "select count(*) from runs where run_id = '" + uid + "'");
  EXPECT_EQ(recorded.output, "1\n") << recorded.errors;
  EXPECT_TRUE(NodeWorld::wait(120s, [&] {
    return w().jsonpath({"deployment", "ods", "-n", "ods-system"},
                        "{.status.updatedReplicas}/{.status.readyReplicas}/"
                        "{.status.replicas}") == "2/2/2";
  })) << w().diagnostics("ods-system");

  // Uninstall: no operator pod is left; every Job left belongs to a DbtRun that exists.
  ProcessResult uninstalled = w().helm({"uninstall", "ods", "-n", "ods-system", "--wait", "--timeout", "3m"});
  ASSERT_EQ(uninstalled.exit_code, 0) << uninstalled.output << uninstalled.errors;
  EXPECT_TRUE(NodeWorld::wait(120s, [&] {
    return w()
        .jsonpath({"pods", "-n", "ods-system", "-l", "app.kubernetes.io/instance=ods"}, "{.items[*].metadata.name}")
        .empty();
  })) << w().diagnostics("ods-system");
  std::istringstream jobs(w().jsonpath({"jobs", "-n", kNamespace},
                                       "{range .items[*]}{.metadata.name} {.metadata.ownerReferences[0].kind} "
                                       "{.metadata.ownerReferences[0].name}{\"\\n\"}{end}"));
  for (std::string job, kind, owner; jobs >> job >> kind >> owner;) {
    EXPECT_EQ(kind, "DbtRun") << job;
    EXPECT_EQ(w().kubectl({"get", "dbtrun", owner, "-n", kNamespace}).exit_code, 0) << job << " outlived " << owner;
  }
  EXPECT_EQ(
      w().jsonpath({"pods", "-n", kNamespace, "--field-selector=status.phase=Running"}, "{.items[*].metadata.name}"),
      "");
  // The run made by hand was adopted by its project when the operator first reconciled it (a
  // controller owner reference, as Kubernetes' controllers adopt orphans). So the project's
  // deletion, with no operator left, takes every run with it, scheduled or made by hand, and
  // their Jobs and pods (the garbage collector; no finalizer waits for an operator that is gone).
  EXPECT_EQ(w().jsonpath({"dbtrun", "during-upgrade", "-n", kNamespace},
                         "{.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}/"
                         "{.metadata.ownerReferences[0].controller}"),
            "DbtProject/shop/true");
  ProcessResult deleted = w().kubectl({"delete", "dbtproject", "shop", "-n", kNamespace, "--wait", "--timeout=60s"});
  EXPECT_EQ(deleted.exit_code, 0) << deleted.errors;
  EXPECT_TRUE(NodeWorld::wait(180s, [&] {
    return w().jsonpath({"dbtruns,jobs,pods", "-n", kNamespace}, "{.items[*].metadata.name}").empty();
  })) << w().kubectl({"get", "dbtruns,jobs,pods", "-n", kNamespace}).output;
}

}  // namespace
}  // namespace ods::testing
