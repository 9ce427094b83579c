// The chart as platform teams install it (issue 39 item 8): as a dependency of an umbrella chart
// (Argo CD, Flux and helmfile setups) whose values set `global`, and with the values such teams
// set on every chart: nameOverride, fullnameOverride, priorityClassName,
// topologySpreadConstraints, podLabels, podAnnotations. Each renders, the API server accepts what
// it renders (server-side dry run), and a typo is still refused, through the umbrella too.
// helm is built from the Go module proxy like kubectl (scripts/kube-binaries.sh helm).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "harness/kube_control_plane.h"
#include "kube/helm_fixture.h"

namespace ods::testing {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const std::string kNamespace = "ods-platform";

class HelmPlatformTest : public HelmFixture {
 protected:
  static void SetUpTestSuite() { start({kNamespace}); }

  // The objects of `manifests` as the API server would store them (server-side apply, dry run), by
  // "<kind>/<name>"; empty with a test failure when the server refuses them.
  static std::map<std::string, json> dry_run(const std::string& manifests, const std::string& file_name) {
    const fs::path file = plane_->dir() / file_name;
    std::ofstream(file) << manifests;
    ProcessResult applied = kubectl({"apply", "--server-side", "--dry-run=server", "-o", "json", "-f", file.string()});
    EXPECT_EQ(applied.exit_code, 0) << describe(applied) << manifests;
    std::map<std::string, json> objects;
    if (applied.exit_code != 0) return objects;
    const json out = json::parse(applied.output);
    const json items = out.value("kind", "") == "List" ? out["items"] : json::array({out});
    for (const json& item : items)
      objects[item["kind"].get<std::string>() + "/" + item["metadata"]["name"].get<std::string>()] = item;
    return objects;
  }
};

// An umbrella chart `platform` depending on helm/ods (file://), its values setting `global` as
// umbrellas do (global.imagePullSecrets, which the chart reads, and a value it does not know) and
// the ods subchart's own values under `ods:`. Returns the umbrella's directory.
fs::path write_umbrella(const fs::path& dir) {
  const fs::path umbrella = dir / "platform";
  fs::remove_all(umbrella);
  fs::create_directories(umbrella);
  std::ofstream(umbrella / "Chart.yaml") << "apiVersion: v2\nname: platform\nversion: 1.0.0\n"
                                            "dependencies:\n  - name: ods\n    version: 0.1.0\n"
                                            "    repository: file://"
                                         << chart_dir().string() << "\n";
  std::ofstream(umbrella / "values.yaml") << "global:\n"
                                             "  imagePullSecrets: [corp-registry]\n"
                                             "  imageRegistry: registry.corp   # an umbrella's, unused by ods\n"
                                             "ods:\n"
                                             "  fullnameOverride: dbt-operator\n"
                                             "  imagePullSecrets: [{name: ods-pull}]\n"
                                             "  podLabels: {team: data-platform}\n";
  return umbrella;
}

TEST_F(HelmPlatformTest, AsASubchartOfAnUmbrellaThatSetsGlobalItLintsRendersAndApplies) {
  const fs::path umbrella = write_umbrella(plane_->dir());
  ProcessResult dependencies = helm({"dependency", "update", umbrella.string()});
  ASSERT_EQ(dependencies.exit_code, 0) << describe(dependencies);
  ProcessResult linted = helm({"lint", umbrella.string(), "--strict", "--with-subcharts"});
  EXPECT_EQ(linted.exit_code, 0) << describe(linted);

  ProcessResult rendered = helm({"template", "plat", umbrella.string(), "--namespace", kNamespace});
  ASSERT_EQ(rendered.exit_code, 0) << describe(rendered);
  auto objects = dry_run(rendered.output, "umbrella.yaml");
  ASSERT_TRUE(objects.contains("Deployment/dbt-operator")) << rendered.output;
  EXPECT_TRUE(objects.contains("ServiceAccount/dbt-operator"));
  EXPECT_TRUE(objects.contains("Service/dbt-operator"));
  const json pod = objects["Deployment/dbt-operator"]["spec"]["template"];
  // global.imagePullSecrets (a name) first, then the subchart's own ({name: ...}).
  EXPECT_EQ(pod["spec"]["imagePullSecrets"], json::parse(R"([{"name": "corp-registry"}, {"name": "ods-pull"}])"));
  EXPECT_EQ(pod["metadata"]["labels"].value("team", ""), "data-platform");
  // The callback URL the operator gives runner pods names the overridden Service.
  EXPECT_NE(pod["spec"]["containers"][0]["args"].dump().find("--callback-url=http://dbt-operator." + kNamespace +
                                                             ".svc:8081"),
            std::string::npos)
      << pod["spec"]["containers"][0]["args"].dump();

  // A typo in the subchart's values is refused through the umbrella, as in the chart alone.
  for (const auto& [value, message] : std::vector<std::pair<std::string, std::string>>{
           {"ods.serviceMonitor.enable=true", "additional properties 'enable' not allowed"},
           {"ods.fullnameOverrides=x", "additional properties 'fullnameOverrides' not allowed"},
           {"global.imagePullSecrets[0]=", "/global/imagePullSecrets/0"}}) {
    ProcessResult refused = helm({"template", "plat", umbrella.string(), "--set", value});
    EXPECT_NE(refused.exit_code, 0) << value << " was accepted";
    EXPECT_NE(refused.errors.find(message), std::string::npos) << value << ":\n" << refused.errors;
  }
}

TEST_F(HelmPlatformTest, NameOverridesPriorityClassSpreadAndPodMetadataRenderAndApply) {
  const fs::path values = plane_->dir() / "platform-values.yaml";
  std::ofstream(values)
      << "nameOverride: dbt-ops\n"
         "priorityClassName: platform-critical\n"
         "podLabels: {team: data-platform}\n"
         "podAnnotations: {cost-center: \"42\"}\n"
         "topologySpreadConstraints:\n"
         "  - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway}\n"
         "  - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule,\n"
         "     labelSelector: {matchLabels: {team: data-platform}}}\n";
  ProcessResult rendered =
      helm({"template", "analytics", chart_dir().string(), "--namespace", kNamespace, "-f", values.string()});
  ASSERT_EQ(rendered.exit_code, 0) << describe(rendered);
  auto objects = dry_run(rendered.output, "platform.yaml");
  // nameOverride: <release>-<name>, and the name label says it.
  ASSERT_TRUE(objects.contains("Deployment/analytics-dbt-ops")) << rendered.output;
  const json deployment = objects["Deployment/analytics-dbt-ops"];
  EXPECT_EQ(deployment["spec"]["selector"]["matchLabels"].value("app.kubernetes.io/name", ""), "dbt-ops");
  const json pod = deployment["spec"]["template"];
  EXPECT_EQ(pod["metadata"]["labels"].value("team", ""), "data-platform");
  EXPECT_EQ(pod["metadata"]["annotations"].value("cost-center", ""), "42");
  EXPECT_EQ(pod["spec"]["priorityClassName"], "platform-critical");
  const json spread = pod["spec"]["topologySpreadConstraints"];
  ASSERT_EQ(spread.size(), 2u) << spread.dump();
  // Without a labelSelector a constraint gets the Deployment's selector; a given one stays.
  EXPECT_EQ(spread[0]["labelSelector"]["matchLabels"], deployment["spec"]["selector"]["matchLabels"]);
  EXPECT_EQ(spread[0]["topologyKey"], "kubernetes.io/hostname");
  EXPECT_EQ(spread[1]["labelSelector"]["matchLabels"], json::parse(R"({"team": "data-platform"})"));
  EXPECT_EQ(spread[1]["whenUnsatisfiable"], "DoNotSchedule");
  // Every object of the release is named after the override, and the NetworkPolicy (on by
  // default) selects the overridden pods.
  const json policy = objects["NetworkPolicy/analytics-dbt-ops"];
  EXPECT_EQ(policy["spec"]["podSelector"]["matchLabels"], deployment["spec"]["selector"]["matchLabels"]);
  EXPECT_TRUE(objects.contains("Service/analytics-dbt-ops"));

  ProcessResult full = helm({"template", "analytics", chart_dir().string(), "--show-only", "templates/service.yaml",
                             "--set", "fullnameOverride=dbt-operator"});
  ASSERT_EQ(full.exit_code, 0) << describe(full);
  EXPECT_NE(full.output.find("name: dbt-operator\n"), std::string::npos) << full.output;

  // Defaults render none of them.
  ProcessResult plain = helm({"template", "ods", chart_dir().string(), "--show-only", "templates/deployment.yaml"});
  ASSERT_EQ(plain.exit_code, 0) << describe(plain);
  for (const std::string absent : {"priorityClassName", "topologySpreadConstraints", "imagePullSecrets"})
    EXPECT_EQ(plain.output.find(absent + ":"), std::string::npos) << absent << " rendered by default";

  // What the API would refuse, or a typo, stops helm.
  for (const std::string bad :
       {"nameOverride=Dbt_Ops", "priorityClass=platform-critical", "topologySpreadConstraints[0].maxSkew=1",
        "podLabel.team=x", "fullnameOverride=a-name-longer-than-sixty-three-characters-is-no-kubernetes-name-at-all"}) {
    ProcessResult r = helm({"template", "ods", chart_dir().string(), "--set", bad});
    EXPECT_NE(r.exit_code, 0) << bad << " was accepted";
  }
}

}  // namespace
}  // namespace ods::testing
