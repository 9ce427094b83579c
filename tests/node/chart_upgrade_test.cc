// Upgrading the chart across a CRD change as docs/kubernetes.md's "Upgrading" says, on the real
// node (node_world.h). Helm installs a chart's crds/ only on `helm install`; the docs say to
// `kubectl apply --server-side` them before `helm upgrade`. The test makes the "next" chart: a
// copy of helm/ods whose DbtProject CRD has one more optional field (spec.team) and a new chart
// version, then, with the chart installed:
//   1. `helm upgrade` to it alone: the release is upgraded, the CRD is not (a project setting
//      spec.team is refused: unknown field) — why the docs' first step exists;
//   2. the docs' block, taken from the doc itself (harness/doc_blocks.h) and run with bash as
//      written, in a folder where helm/ods is the next chart: the CRD has the field, a project
//      setting it is accepted and keeps it, and the operator runs that project to Succeeded;
//   3. the chart's default runnerPolicy: a project naming another image than the release's
//      runner repository fails RunnerNotAllowed, with no Job.
// Shard `node`; runs as root, serially.
#include <gtest/gtest.h>

#include <fstream>

#include "harness/doc_blocks.h"
#include "harness/source_paths.h"
#include "node_world.h"

namespace ods::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr const char* kNamespace = "chart-upgrade";
constexpr const char* kNewField =
    "                team:\n"
    "                  type: string\n"
    "                  description: The team that owns the project (a field of the test's next chart).\n";

// helm/ods copied to `dir`/helm/ods as the next release: version 0.1.0-next, and spec.team in the
// DbtProject CRD. "" on success, else what failed.
std::string write_next_chart(const fs::path& dir) {
  const fs::path chart = dir / "helm" / "ods";
  fs::remove_all(dir / "helm");
  fs::create_directories(chart.parent_path());
  fs::copy(source_dir() / "helm" / "ods", chart, fs::copy_options::recursive);
  std::string crd = read_text(chart / "crds" / "dbtproject.yaml");
  if (!replace_once(crd,
                    "              required: [source, image, profileSecretRef, target]\n              properties:\n",
                    std::string("              required: [source, image, profileSecretRef, target]\n"
                                "              properties:\n") +
                        kNewField))
    return "crds/dbtproject.yaml no longer has spec's required list where the test adds spec.team";
  std::ofstream(chart / "crds" / "dbtproject.yaml", std::ios::trunc) << crd;
  std::string meta = read_text(chart / "Chart.yaml");
  if (!replace_once(meta, "\nversion: 0.1.0\n", "\nversion: 0.1.0-next\n"))
    return "helm/ods/Chart.yaml's version is no longer 0.1.0: update the test's next version";
  std::ofstream(chart / "Chart.yaml", std::ios::trunc) << meta;
  return "";
}

class ChartUpgradeOnARealNode : public NodeWorldTest {
 protected:
  // kubectl apply of a project setting spec.team, with the API server's strict field validation.
  ProcessResult apply_project_with_team(const std::string& name) {
    const fs::path file = w().dir() / (name + "-project.yaml");
    std::ofstream(file, std::ios::trunc) << shop_project(w(), name, "  dbtProjectName: shop\n  team: data-platform\n");
    return w().kubectl({"apply", "--validate=strict", "-n", kNamespace, "-f", file.string()});
  }
};

TEST_F(ChartUpgradeOnARealNode, TheDocsUpgradeAppliesTheNewCrdsAndTheOperatorStillRunsProjects) {
  auto installed = ensure_operator_installed(w());
  ASSERT_TRUE(installed) << installed.error();
  auto secrets = create_shop_secrets(w(), kNamespace);
  ASSERT_TRUE(secrets) << secrets.error();
  const fs::path work = w().dir() / "upgrade";
  const std::string made = write_next_chart(work);
  ASSERT_EQ(made, "");

  // 1. helm upgrade alone: the release moves, the CRD does not.
  ProcessResult helm_only = w().helm({"upgrade", "ods", (work / "helm" / "ods").string(), "-n", "ods-system",
                                      "--reset-then-reuse-values", "--wait", "--timeout", "5m"});
  ASSERT_EQ(helm_only.exit_code, 0) << helm_only.output << helm_only.errors << w().diagnostics("ods-system");
  const std::string team_type = "{.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.team.type}";
  EXPECT_EQ(w().jsonpath({"crd", "dbtprojects.ods.dev"}, team_type), "") << "helm upgrade changed the CRD";
  ProcessResult refused = apply_project_with_team("before-crds");
  EXPECT_NE(refused.exit_code, 0) << "spec.team was accepted before the CRDs were applied";
  EXPECT_NE(refused.errors.find("unknown field \"spec.team\""), std::string::npos) << refused.errors;

  // 2. The docs' commands, as written, where helm/ods is the next chart.
  const std::string doc = read_text(source_dir() / "docs" / "kubernetes.md");
  const std::string script = first_sh_block_in_section(doc, "### Upgrading");
  ASSERT_NE(script.find("kubectl apply --server-side"), std::string::npos)
      << "no ```sh block applying the CRDs under ### Upgrading in docs/kubernetes.md:\n"
      << script;
  ASSERT_NE(script.find("helm upgrade ods helm/ods -n ods-system"), std::string::npos) << script;
  std::ofstream(work / "upgrade.sh", std::ios::trunc) << "set -euo pipefail\nset -x\n" << script;
  auto kube_bin = kube_binaries_dir();
  ASSERT_TRUE(kube_bin) << kube_bin.error();
  auto helm = helm_binary();
  ASSERT_TRUE(helm) << helm.error();
  ProcessResult ran =
      run_process({"/bin/bash", (work / "upgrade.sh").string()}, work,
                  {"PATH=" + kube_bin->string() + ":" + helm->parent_path().string() + ":/usr/sbin:/usr/bin:/sbin:/bin",
                   "KUBECONFIG=" + w().plane().kubeconfig().string(), "HOME=" + work.string()});
  ASSERT_EQ(ran.exit_code, 0) << ran.output << ran.errors << w().diagnostics("ods-system");
  EXPECT_EQ(w().jsonpath({"crd", "dbtprojects.ods.dev"}, team_type), "string") << ran.output << ran.errors;
  EXPECT_EQ(w().jsonpath({"deployment", "ods", "-n", "ods-system"}, "{.spec.template.metadata.labels.helm\\.sh/chart}"),
            "ods-0.1.0-next");
  EXPECT_EQ(w().jsonpath({"deployment", "ods", "-n", "ods-system"}, "{.status.readyReplicas}"), "2");

  // A project using the new field is accepted, keeps it, and the operator runs it.
  ProcessResult accepted = apply_project_with_team("upgraded");
  ASSERT_EQ(accepted.exit_code, 0) << accepted.output << accepted.errors;
  EXPECT_EQ(w().jsonpath({"dbtproject", "upgraded", "-n", kNamespace}, "{.spec.team}"), "data-platform");
  std::vector<std::string> runs;
  ASSERT_TRUE(NodeWorld::wait(120s, [&] { return !(runs = w().runs_of(kNamespace, "upgraded")).empty(); }))
      << w().diagnostics(kNamespace);
  EXPECT_EQ(w().wait_run_finished(kNamespace, runs.front()), "Succeeded") << w().diagnostics(kNamespace);
  EXPECT_NE(w().jsonpath({"dbtrun", runs.front(), "-n", kNamespace}, "{.status.plan.built}"), "");

  // The chart's default allow-list: image.runner.repository (any tag or digest), nothing else.
  std::string elsewhere = shop_project(w(), "elsewhere", "  dbtProjectName: shop\n");
  const std::string runner = w().image("runner");
  const std::string other = runner.substr(0, runner.rfind(':')) + "-other:1";
  ASSERT_TRUE(replace_once(elsewhere, "image: " + runner + "\n", "image: " + other + "\n")) << elsewhere;
  ASSERT_EQ(w().apply(elsewhere, kNamespace).exit_code, 0);
  ASSERT_TRUE(NodeWorld::wait(120s, [&] { return !(runs = w().runs_of(kNamespace, "elsewhere")).empty(); }))
      << w().diagnostics(kNamespace);
  EXPECT_EQ(w().wait_run_finished(kNamespace, runs.front(), 120s), "Failed") << w().diagnostics(kNamespace);
  EXPECT_EQ(w().jsonpath({"dbtrun", runs.front(), "-n", kNamespace}, "{.status.reason}"), "RunnerNotAllowed");
  const std::string message = w().jsonpath({"dbtrun", runs.front(), "-n", kNamespace}, "{.status.message}");
  EXPECT_NE(message.find("spec.image '" + other + "' is not allowed"), std::string::npos) << message;
  EXPECT_EQ(w().jsonpath({"jobs", "-n", kNamespace, "-l", "ods.dev/project=elsewhere"}, "{.items[*].metadata.name}"),
            "")
      << "a Job for a project whose image is not allowed";

  // Leave the shared release as the other suites expect it: today's chart and CRDs.
  for (const char* project : {"upgraded", "elsewhere"})
    (void)w().kubectl({"delete", "dbtproject", project, "-n", kNamespace, "--wait", "--timeout=120s"});
  ProcessResult crds = w().kubectl(
      {"apply", "--server-side", "--force-conflicts", "-f", (source_dir() / "helm" / "ods" / "crds").string()});
  EXPECT_EQ(crds.exit_code, 0) << crds.errors;
  ProcessResult back = w().helm(
      {"upgrade", "ods", "helm/ods", "-n", "ods-system", "--reset-then-reuse-values", "--wait", "--timeout", "5m"});
  EXPECT_EQ(back.exit_code, 0) << back.output << back.errors;
}

}  // namespace
}  // namespace ods::testing
