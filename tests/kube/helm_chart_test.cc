// The Helm chart (helm/ods) on a real kube-apiserver: `helm lint --strict` passes, its CRDs are
// crds/ byte for byte, what `helm template` renders applies to the API server, the Deployment
// has the probes, non-root security context and Secret references the design asks for, and the
// operator's ServiceAccount may do exactly what the operator needs: each need is allowed, and
// what it does not need is refused (checked with the account's own token).
// helm is built from the Go module proxy like kubectl (scripts/kube-binaries.sh helm).
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "harness/kube_control_plane.h"
#include "kube/helm_fixture.h"

namespace ods::testing {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const std::string kNamespace = "ods-system";
const std::string kRelease = "ods";  // objects are named "ods" (the release name has the chart's)
const std::string kAccount = "ods";
const std::string kTeam = "team-a";  // a namespace where users keep DbtProjects

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

class HelmChartTest : public HelmFixture {
 protected:
  static void SetUpTestSuite() {
    if (!start({kNamespace, kTeam})) return;
    ProcessResult rendered = helm({"template", kRelease, chart_dir().string(), "--namespace", kNamespace,
                                   "--include-crds", "--set", "grafanaDashboard.enabled=true"});
    if (rendered.exit_code != 0) {
      start_error_ = "helm template: " + describe(rendered);
      return;
    }
    rendered_ = rendered.output;
    const fs::path manifests = plane_->dir() / "chart.yaml";
    std::ofstream(manifests) << rendered_;
    applied_ = kubectl({"apply", "--server-side", "-f", manifests.string()});
  }

  static inline std::string rendered_;
  static inline ProcessResult applied_;
};

TEST_F(HelmChartTest, LintPassesStrict) {
  ProcessResult linted = helm({"lint", chart_dir().string(), "--strict"});
  EXPECT_EQ(linted.exit_code, 0) << describe(linted);
  EXPECT_NE(linted.output.find("1 chart(s) linted, 0 chart(s) failed"), std::string::npos) << linted.output;
}

TEST_F(HelmChartTest, TheChartsCrdsAreTheCrdsFolderByteForByte) {
  std::vector<std::string> in_chart;
  for (const auto& entry : fs::directory_iterator(chart_dir() / "crds")) in_chart.push_back(entry.path().filename());
  std::vector<std::string> in_crds;
  for (const auto& entry : fs::directory_iterator(source_dir() / "crds"))
    if (entry.is_regular_file() && entry.path().extension() == ".yaml") in_crds.push_back(entry.path().filename());
  std::sort(in_chart.begin(), in_chart.end());
  std::sort(in_crds.begin(), in_crds.end());
  ASSERT_EQ(in_chart, in_crds) << "copy crds/*.yaml to helm/ods/crds/ (cp crds/*.yaml helm/ods/crds/)";
  for (const auto& file : in_crds)
    EXPECT_EQ(read_file(chart_dir() / "crds" / file), read_file(source_dir() / "crds" / file))
        << "helm/ods/crds/" << file << " differs from crds/" << file << ": cp crds/*.yaml helm/ods/crds/";
}

TEST_F(HelmChartTest, TheRenderedManifestsApplyToTheApiServer) {
  ASSERT_EQ(applied_.exit_code, 0) << describe(applied_);
  for (const std::string object :
       {"customresourcedefinition.apiextensions.k8s.io/dbtprojects.ods.dev serverside-applied",
        "customresourcedefinition.apiextensions.k8s.io/dbtruns.ods.dev serverside-applied",
        "serviceaccount/ods serverside-applied", "configmap/ods-dashboard serverside-applied",
        "clusterrole.rbac.authorization.k8s.io/ods serverside-applied",
        "clusterrolebinding.rbac.authorization.k8s.io/ods serverside-applied",
        "role.rbac.authorization.k8s.io/ods-leader-election serverside-applied",
        "rolebinding.rbac.authorization.k8s.io/ods-leader-election serverside-applied",
        "role.rbac.authorization.k8s.io/ods-secrets serverside-applied",
        "rolebinding.rbac.authorization.k8s.io/ods-secrets serverside-applied",
        "clusterrole.rbac.authorization.k8s.io/ods-view serverside-applied",
        "clusterrole.rbac.authorization.k8s.io/ods-edit serverside-applied",
        "poddisruptionbudget.policy/ods serverside-applied", "service/ods serverside-applied",
        "deployment.apps/ods serverside-applied", "networkpolicy.networking.k8s.io/ods serverside-applied"})
    EXPECT_NE(applied_.output.find(object), std::string::npos) << object << " in:\n" << applied_.output;

  ProcessResult dashboard = kubectl({"get", "configmap", "ods-dashboard", "-n", kNamespace, "-o", "json"});
  ASSERT_EQ(dashboard.exit_code, 0) << describe(dashboard);
  const json board = json::parse(json::parse(dashboard.output)["data"]["ods.json"].get<std::string>());
  EXPECT_EQ(board["panels"].size(), json::parse(read_file(chart_dir() / "dashboards" / "ods.json"))["panels"].size());
}

TEST_F(HelmChartTest, TheDeploymentProbesRunsAsNonRootAndReadsItsSecretsByReference) {
  ASSERT_EQ(applied_.exit_code, 0) << describe(applied_);
  ProcessResult got = kubectl({"get", "deployment", "ods", "-n", kNamespace, "-o", "json"});
  ASSERT_EQ(got.exit_code, 0) << describe(got);
  const json deployment = json::parse(got.output);
  EXPECT_EQ(deployment["spec"]["replicas"], 2);
  const json pod = deployment["spec"]["template"]["spec"];
  EXPECT_EQ(pod["serviceAccountName"], kAccount);
  EXPECT_EQ(pod["securityContext"]["runAsNonRoot"], true);
  const json container = pod["containers"][0];
  EXPECT_EQ(container["livenessProbe"]["httpGet"]["path"], "/healthz");
  EXPECT_EQ(container["readinessProbe"]["httpGet"]["path"], "/readyz");
  EXPECT_EQ(container["securityContext"]["allowPrivilegeEscalation"], false);
  EXPECT_EQ(container["securityContext"]["readOnlyRootFilesystem"], true);
  EXPECT_EQ(container["securityContext"]["capabilities"]["drop"], json::array({"ALL"}));
  std::map<std::string, json> env;
  for (const json& entry : container["env"]) env[entry["name"]] = entry;
  // The Secrets are referenced by name; their values never appear in the pod's spec. The one
  // literal is HOME: a writable path (the image's user has none, the root file system is read-only).
  for (const auto& [name, entry] : env) {
    if (name == "HOME") continue;
    EXPECT_FALSE(entry.contains("value")) << name;
  }
  EXPECT_EQ(env["HOME"].value("value", ""), "/tmp");
  bool tmp_mounted = false;
  for (const json& mount : container["volumeMounts"]) tmp_mounted = tmp_mounted || mount["mountPath"] == "/tmp";
  EXPECT_TRUE(tmp_mounted) << container["volumeMounts"].dump();
  // Rollouts start a new replica (ready as a follower) before stopping an old one.
  EXPECT_EQ(deployment["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"], 0);
  const std::string args = container["args"].dump();
  EXPECT_NE(args.find("--leader-elect"), std::string::npos) << args;
  EXPECT_NE(args.find("--metrics-listen=:8080"), std::string::npos) << args;
  EXPECT_NE(args.find("--state-secret=$(POD_NAMESPACE)/ods-state:dsn"), std::string::npos) << args;
  EXPECT_NE(args.find("--callback-key-secret=$(POD_NAMESPACE)/ods-callback-key:key"), std::string::npos) << args;

  ProcessResult service = kubectl({"get", "service", "ods", "-n", kNamespace, "-o", "jsonpath={.spec.ports[*].name}"});
  ASSERT_EQ(service.exit_code, 0) << describe(service);
  EXPECT_EQ(service.output, "metrics callback");
}

TEST_F(HelmChartTest, TogglesRenderTheServiceMonitorAndUnsafeValuesAreRefused) {
  ProcessResult plain = helm({"template", kRelease, chart_dir().string(), "--namespace", kNamespace});
  ASSERT_EQ(plain.exit_code, 0) << describe(plain);
  EXPECT_EQ(plain.output.find("kind: ServiceMonitor"), std::string::npos) << "ServiceMonitor is off by default";
  EXPECT_EQ(plain.output.find("kind: ConfigMap"), std::string::npos) << "the dashboard is off by default";

  ProcessResult monitored = helm({"template", kRelease, chart_dir().string(), "--namespace", kNamespace, "--show-only",
                                  "templates/servicemonitor.yaml", "--set", "serviceMonitor.enabled=true"});
  ASSERT_EQ(monitored.exit_code, 0) << describe(monitored);
  EXPECT_NE(monitored.output.find("kind: ServiceMonitor"), std::string::npos) << monitored.output;
  EXPECT_NE(monitored.output.find("- port: metrics\n      path: /metrics"), std::string::npos) << monitored.output;

  ProcessResult two_leaders =
      helm({"template", kRelease, chart_dir().string(), "--set", "leaderElection.enabled=false"});
  EXPECT_NE(two_leaders.exit_code, 0);
  EXPECT_NE(two_leaders.errors.find("replicaCount > 1 needs leaderElection.enabled"), std::string::npos)
      << two_leaders.errors;
  // values.schema.json: the state store is a Secret reference, never a DSN or a password.
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"state.secretName=", "/state/secretName"},
      {"state.password=hunter2", "additional properties 'password' not allowed"},
      {"state.dsn=postgresql://ods:pw@db/ods", "additional properties 'dsn' not allowed"},
      {"logLevel=verbose", "/logLevel"},
      {"metrics.port=http", "/metrics/port"},
      // Typos are refused, not ignored (issue 25: serviceMonitor.enable rendered no ServiceMonitor).
      {"serviceMonitor.enable=true", "additional properties 'enable' not allowed"},
      {"replicas=3", "additional properties 'replicas' not allowed"},
      {"image.operator.tags=1", "additional properties 'tags' not allowed"},
      {"rbac.watchNamespace=Team_A", "/rbac/watchNamespace"},
  };
  for (const auto& [value, message] : refused) {
    ProcessResult r = helm({"template", kRelease, chart_dir().string(), "--set", value});
    EXPECT_NE(r.exit_code, 0) << value << " was accepted";
    EXPECT_NE(r.errors.find(message), std::string::npos) << value << ":\n" << r.errors;
  }
}

// Kubernetes 1.31 at least: DbtRun's selectableFields (the runs of a project by
// spec.projectRef.name) is alpha and off in 1.30, where the chart once claimed to work.
TEST_F(HelmChartTest, TheChartRequiresKubernetes131) {
  ProcessResult old = helm({"template", kRelease, chart_dir().string(), "--kube-version", "1.30.9"});
  EXPECT_NE(old.exit_code, 0) << "the chart rendered for Kubernetes 1.30";
  EXPECT_NE(old.errors.find(">=1.31.0-0"), std::string::npos) << old.errors;
  ProcessResult supported = helm({"template", kRelease, chart_dir().string(), "--kube-version", "1.31.0"});
  EXPECT_EQ(supported.exit_code, 0) << describe(supported);
}

// Two replicas: a budget keeps one through a drain; one replica: no budget (it would block drains).
TEST_F(HelmChartTest, APodDisruptionBudgetKeepsOneOfTwoReplicas) {
  ASSERT_EQ(applied_.exit_code, 0) << describe(applied_);
  ProcessResult got = kubectl({"get", "pdb", "ods", "-n", kNamespace, "-o", "json"});
  ASSERT_EQ(got.exit_code, 0) << describe(got);
  const json spec = json::parse(got.output)["spec"];
  EXPECT_EQ(spec["minAvailable"], 1);
  ProcessResult deployment = kubectl({"get", "deployment", "ods", "-n", kNamespace, "-o", "json"});
  ASSERT_EQ(deployment.exit_code, 0) << describe(deployment);
  EXPECT_EQ(spec["selector"], json::parse(deployment.output)["spec"]["selector"]);
  ProcessResult single = helm(
      {"template", kRelease, chart_dir().string(), "--set", "replicaCount=1", "--set", "leaderElection.enabled=false"});
  ASSERT_EQ(single.exit_code, 0) << describe(single);
  EXPECT_EQ(single.output.find("kind: PodDisruptionBudget"), std::string::npos) << "a budget for one replica";
}

// A CA for the state store's sslmode=verify-full: a Secret mounted through extraVolumes and
// extraVolumeMounts, named by extraEnv (PGSSLROOTCERT); the API server accepts the Deployment.
TEST_F(HelmChartTest, ExtraEnvVolumesAndMountsReachTheOperatorsPod) {
  const fs::path values = plane_->dir() / "ca-values.yaml";
  std::ofstream(values) << "extraVolumes: [{name: pg-ca, secret: {secretName: pg-ca}}]\n"
                           "extraVolumeMounts: [{name: pg-ca, mountPath: /etc/ods/pg-ca, readOnly: true}]\n"
                           "extraEnv: [{name: PGSSLROOTCERT, value: /etc/ods/pg-ca/ca.crt}]\n";
  ProcessResult rendered = helm({"template", kRelease, chart_dir().string(), "--namespace", kNamespace, "--show-only",
                                 "templates/deployment.yaml", "-f", values.string()});
  ASSERT_EQ(rendered.exit_code, 0) << describe(rendered);
  const fs::path file = plane_->dir() / "ca-deployment.yaml";
  std::ofstream(file) << rendered.output;
  ProcessResult dry_run = kubectl({"apply", "--server-side", "--dry-run=server", "-o", "json", "-f", file.string()});
  ASSERT_EQ(dry_run.exit_code, 0) << describe(dry_run);
  const json pod = json::parse(dry_run.output)["spec"]["template"]["spec"];
  std::map<std::string, json> volumes, mounts, env;
  for (const json& v : pod["volumes"]) volumes[v["name"]] = v;
  for (const json& m : pod["containers"][0]["volumeMounts"]) mounts[m["mountPath"]] = m;
  for (const json& e : pod["containers"][0]["env"]) env[e["name"]] = e;
  EXPECT_EQ(volumes["pg-ca"]["secret"]["secretName"], "pg-ca") << pod["volumes"].dump();
  EXPECT_TRUE(volumes.contains("tmp")) << "the chart's own volume stays";
  EXPECT_EQ(mounts["/etc/ods/pg-ca"]["name"], "pg-ca");
  EXPECT_EQ(mounts["/etc/ods/pg-ca"]["readOnly"], true);
  EXPECT_EQ(env["PGSSLROOTCERT"]["value"], "/etc/ods/pg-ca/ca.crt");
  EXPECT_EQ(env["HOME"]["value"], "/tmp");
  ProcessResult nameless =
      helm({"template", kRelease, chart_dir().string(), "--set", "extraVolumeMounts[0].readOnly=true"});
  EXPECT_NE(nameless.exit_code, 0) << "a volume mount without name and mountPath was accepted";
}

// runnerPolicy reaches the operator as the flags it parses (operator_options_test checks them), and
// a value the operator would refuse (an item with a comma, an account that is no valid name) is
// refused at install time. By default projects may run the release's runner image (any tag or
// digest of image.runner.repository), not any image; ["*"] allows any.
TEST_F(HelmChartTest, TheRunnerPolicyBecomesTheOperatorsAllowListFlags) {
  ProcessResult plain = helm({"template", kRelease, chart_dir().string(), "--show-only", "templates/deployment.yaml"});
  ASSERT_EQ(plain.exit_code, 0) << describe(plain);
  EXPECT_NE(plain.output.find("- --allowed-images=ghcr.io/ods-dev/ods-runner,ghcr.io/ods-dev/ods-runner:*,"
                              "ghcr.io/ods-dev/ods-runner@*\n"),
            std::string::npos)
      << "the release's runner image by default:\n"
      << plain.output;
  EXPECT_EQ(plain.output.find("--allowed-service-accounts"), std::string::npos) << "any service account by default";
  ProcessResult own = helm({"template", kRelease, chart_dir().string(), "--show-only", "templates/deployment.yaml",
                            "--set", "image.runner.repository=registry.corp/dbt/runner"});
  ASSERT_EQ(own.exit_code, 0) << describe(own);
  EXPECT_NE(own.output.find("- --allowed-images=registry.corp/dbt/runner,registry.corp/dbt/runner:*,"
                            "registry.corp/dbt/runner@*\n"),
            std::string::npos)
      << own.output;
  ProcessResult any = helm({"template", kRelease, chart_dir().string(), "--show-only", "templates/deployment.yaml",
                            "--set", "runnerPolicy.allowedImages={*}"});
  ASSERT_EQ(any.exit_code, 0) << describe(any);
  EXPECT_NE(any.output.find("- --allowed-images=*\n"), std::string::npos) << any.output;
  ProcessResult strict = helm({"template", kRelease, chart_dir().string(), "--show-only", "templates/deployment.yaml",
                               "--set", "runnerPolicy.allowedImages={ghcr.io/ods-dev/ods-runner:*,registry.corp/a/*}",
                               "--set", "runnerPolicy.allowedServiceAccounts={dbt-runner}"});
  ASSERT_EQ(strict.exit_code, 0) << describe(strict);
  EXPECT_NE(strict.output.find("- --allowed-images=ghcr.io/ods-dev/ods-runner:*,registry.corp/a/*\n"),
            std::string::npos)
      << strict.output;
  EXPECT_NE(strict.output.find("- --allowed-service-accounts=dbt-runner\n"), std::string::npos) << strict.output;
  for (const std::string bad : {"runnerPolicy.allowedServiceAccounts={Not_A_Name}",
                                "runnerPolicy.allowedImages[0]=", "runnerPolicy.allowImages={x}"}) {
    ProcessResult r = helm({"template", kRelease, chart_dir().string(), "--set", bad});
    EXPECT_NE(r.exit_code, 0) << bad << " was accepted";
  }
}

// runner.packagesCache reaches the operator as the flag it parses (operator_options_test), which puts
// the volume into every runner Job (run_reconciler_test); none by default; both at once, a relative
// path, a '..' or a claim that is no valid name are refused at install time.
TEST_F(HelmChartTest, ThePackagesCacheBecomesTheOperatorsFlag) {
  auto deployment = [&](const std::vector<std::string>& sets) {
    std::vector<std::string> args{"template", kRelease, chart_dir().string(), "--show-only",
                                  "templates/deployment.yaml"};
    for (const auto& s : sets) args.insert(args.end(), {"--set", s});
    return helm(args);
  };
  ProcessResult plain = deployment({});
  ASSERT_EQ(plain.exit_code, 0) << describe(plain);
  EXPECT_EQ(plain.output.find("--packages-cache"), std::string::npos) << "no cache by default";
  ProcessResult host = deployment({"runner.packagesCache.hostPath=/var/cache/ods-packages"});
  ASSERT_EQ(host.exit_code, 0) << describe(host);
  EXPECT_NE(host.output.find("- --packages-cache-host-path=/var/cache/ods-packages\n"), std::string::npos)
      << host.output;
  ProcessResult claim = deployment({"runner.packagesCache.claimName=dbt-packages"});
  ASSERT_EQ(claim.exit_code, 0) << describe(claim);
  EXPECT_NE(claim.output.find("- --packages-cache-claim=dbt-packages\n"), std::string::npos) << claim.output;
  for (const std::vector<std::string>& bad :
       std::vector<std::vector<std::string>>{{"runner.packagesCache.hostPath=/c", "runner.packagesCache.claimName=c"},
                                             {"runner.packagesCache.hostPath=var/cache"},
                                             {"runner.packagesCache.hostPath=/var/../etc"},
                                             {"runner.packagesCache.claimName=Not_A_Name"},
                                             {"runner.packagesCache.enabled=true"}}) {
    ProcessResult r = deployment(bad);
    EXPECT_NE(r.exit_code, 0) << bad[0] << " was accepted";
  }
}

struct Access {
  std::vector<std::string> can_i;  // the arguments of `kubectl auth can-i`
  bool allowed;
};

TEST_F(HelmChartTest, TheOperatorsAccountMayDoWhatItNeedsAndIsRefusedTheRest) {
  ASSERT_EQ(applied_.exit_code, 0) << describe(applied_);
  auto account = plane_->service_account_kubeconfig(kNamespace, kAccount);
  ASSERT_TRUE(account) << account.error();
  auto can_i = [&](const std::vector<std::string>& args) {
    std::vector<std::string> full = {"auth", "can-i"};
    full.insert(full.end(), args.begin(), args.end());
    return plane_->kubectl_as(*account, full);
  };
  // The authorizer learns of the chart's bindings through a watch: wait for the first one.
  ProcessResult first;
  for (int attempt = 0; attempt < 100; ++attempt) {
    first = can_i({"watch", "dbtprojects.ods.dev", "--all-namespaces"});
    if (first.exit_code == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(first.exit_code, 0) << describe(first);

  const std::vector<Access> matrix = {
      // What the operator needs.
      {{"list", "dbtprojects.ods.dev", "--all-namespaces"}, true},
      {{"patch", "dbtprojects.ods.dev", "-n", kTeam}, true},
      {{"update", "dbtprojects.ods.dev", "--subresource=status", "-n", kTeam}, true},
      {{"watch", "dbtruns.ods.dev", "--all-namespaces"}, true},
      {{"create", "dbtruns.ods.dev", "-n", kTeam}, true},
      {{"delete", "dbtruns.ods.dev", "-n", kTeam}, true},
      {{"patch", "dbtruns.ods.dev", "--subresource=status", "-n", kTeam}, true},
      {{"create", "jobs.batch", "-n", kTeam}, true},
      {{"delete", "jobs.batch", "-n", kTeam}, true},
      {{"watch", "jobs.batch", "--all-namespaces"}, true},
      {{"list", "pods", "--all-namespaces"}, true},
      {{"watch", "pods", "-n", kTeam}, true},
      {{"create", "secrets", "-n", kTeam}, true},
      {{"get", "secrets", "-n", kTeam}, false},  // it never reads a Secret it did not get by name below
      {{"delete", "secrets", "-n", kTeam}, true},
      {{"create", "events", "-n", kTeam}, true},
      {{"create", "events.events.k8s.io", "-n", kTeam}, true},
      {{"get", "leases.coordination.k8s.io", "-n", kNamespace}, true},
      {{"create", "leases.coordination.k8s.io", "-n", kNamespace}, true},
      {{"update", "leases.coordination.k8s.io", "-n", kNamespace}, true},
      // What it does not.
      {{"list", "secrets", "-n", kTeam}, false},
      {{"watch", "secrets", "--all-namespaces"}, false},
      {{"update", "secrets", "-n", kTeam}, false},
      {{"patch", "secrets", "-n", kNamespace}, false},
      {{"create", "leases.coordination.k8s.io", "-n", kTeam}, false},
      {{"delete", "leases.coordination.k8s.io", "-n", kNamespace}, false},
      {{"delete", "customresourcedefinitions.apiextensions.k8s.io"}, false},
      {{"create", "customresourcedefinitions.apiextensions.k8s.io"}, false},
      {{"create", "dbtprojects.ods.dev", "-n", kTeam}, false},
      {{"delete", "dbtprojects.ods.dev", "-n", kTeam}, false},
      {{"create", "pods", "-n", kTeam}, false},
      {{"delete", "pods", "-n", kTeam}, false},
      {{"create", "pods", "--subresource=exec", "-n", kTeam}, false},
      {{"update", "jobs.batch", "-n", kTeam}, false},
      {{"create", "deployments.apps", "-n", kNamespace}, false},
      {{"get", "configmaps", "-n", kNamespace}, false},
      {{"create", "clusterrolebindings.rbac.authorization.k8s.io"}, false},
      {{"create", "serviceaccounts", "--subresource=token", "-n", kTeam}, false},
  };
  for (const Access& access : matrix) {
    ProcessResult r = can_i(access.can_i);
    std::string what;
    for (const auto& arg : access.can_i) what += arg + " ";
    EXPECT_EQ(r.exit_code == 0, access.allowed) << what << (access.allowed ? "is refused" : "is allowed") << "\n"
                                                << describe(r);
  }
}

TEST_F(HelmChartTest, RequestsWithTheOperatorsTokenSucceedOrAreForbiddenAsTheRulesSay) {
  ASSERT_EQ(applied_.exit_code, 0) << describe(applied_);
  auto account = plane_->service_account_kubeconfig(kNamespace, kAccount);
  ASSERT_TRUE(account) << account.error();
  auto as_operator = [&](const std::vector<std::string>& args) { return plane_->kubectl_as(*account, args); };

  // A per-run callback Secret: created and deleted, never read back.
  ProcessResult created;
  for (int attempt = 0; attempt < 100; ++attempt) {
    created = as_operator({"create", "secret", "generic", "shop-7-callback", "-n", kTeam, "--from-literal=token=t"});
    if (created.exit_code == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(created.exit_code, 0) << describe(created);
  ProcessResult read = as_operator({"get", "secret", "shop-7-callback", "-n", kTeam, "-o", "name"});
  EXPECT_NE(read.exit_code, 0) << "reading a Secret in a served namespace is not granted";
  EXPECT_NE(read.errors.find("forbidden"), std::string::npos) << read.errors;
  ProcessResult listed = as_operator({"get", "secrets", "-n", kTeam});
  EXPECT_NE(listed.exit_code, 0) << "listing Secrets is not granted";
  EXPECT_NE(listed.errors.find("forbidden"), std::string::npos) << listed.errors;
  ProcessResult deleted = as_operator({"delete", "secret", "shop-7-callback", "-n", kTeam});
  EXPECT_EQ(deleted.exit_code, 0) << describe(deleted);

  // Its leader Lease: in its own namespace only.
  auto lease_in = [&](const std::string& ns) {
    const json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                        {"kind", "Lease"},
                        {"metadata", {{"name", "ods-leader"}, {"namespace", ns}}},
                        {"spec", {{"holderIdentity", "ods-0"}, {"leaseDurationSeconds", 15}}}};
    const fs::path file = plane_->dir() / ("lease-" + ns + ".json");
    std::ofstream(file) << lease.dump();
    return as_operator({"create", "-f", file.string()});
  };
  ProcessResult own = lease_in(kNamespace);
  EXPECT_EQ(own.exit_code, 0) << describe(own);
  ProcessResult other = lease_in(kTeam);
  EXPECT_NE(other.exit_code, 0) << "a Lease outside the operator's namespace was allowed";
  EXPECT_NE(other.errors.find("forbidden"), std::string::npos) << other.errors;

  ProcessResult crd = as_operator({"delete", "crd", "dbtruns.ods.dev"});
  EXPECT_NE(crd.exit_code, 0) << "the operator could delete a CRD";
  EXPECT_NE(crd.errors.find("forbidden"), std::string::npos) << crd.errors;
}

TEST_F(HelmChartTest, TheNetworkPolicyLetsOnlyRunnerPodsReachTheCallbackPort) {
  ASSERT_EQ(applied_.exit_code, 0) << describe(applied_);
  ProcessResult got = kubectl({"get", "networkpolicy", "ods", "-n", kNamespace, "-o", "json"});
  ASSERT_EQ(got.exit_code, 0) << describe(got);
  const json spec = json::parse(got.output)["spec"];
  // It selects the operator's pods (the Deployment's pod labels) and restricts only ingress.
  ProcessResult deployment = kubectl({"get", "deployment", "ods", "-n", kNamespace, "-o", "json"});
  ASSERT_EQ(deployment.exit_code, 0) << describe(deployment);
  const json pod = json::parse(deployment.output)["spec"]["template"];
  for (const auto& [label, value] : spec["podSelector"]["matchLabels"].items()) {
    EXPECT_EQ(pod["metadata"]["labels"].value(label, ""), value) << label;
  }
  EXPECT_EQ(spec["policyTypes"], json::array({"Ingress"}));
  std::set<std::string> container_ports;
  for (const json& port : pod["spec"]["containers"][0]["ports"]) container_ports.insert(port["name"]);
  ASSERT_EQ(spec["ingress"].size(), 2u) << spec.dump(2);
  // The callback port: only from pods the operator labelled as runner pods, in any namespace.
  const json callback = spec["ingress"][0];
  EXPECT_EQ(callback["ports"], json::parse(R"([{"port": "callback", "protocol": "TCP"}])"));
  EXPECT_TRUE(container_ports.contains("callback"));
  ASSERT_EQ(callback["from"].size(), 1u);
  EXPECT_EQ(callback["from"][0]["namespaceSelector"], json::object());
  EXPECT_EQ(callback["from"][0]["podSelector"]["matchLabels"],
            json::parse(R"({"app.kubernetes.io/managed-by": "ods-operator"})"));
  EXPECT_EQ(callback["from"][0]["podSelector"]["matchExpressions"],
            json::parse(R"([{"key": "ods.dev/run", "operator": "Exists"}])"));
  // The metrics port: from anywhere unless metricsFrom says otherwise.
  EXPECT_EQ(spec["ingress"][1]["ports"][0]["port"], "metrics");
  EXPECT_TRUE(container_ports.contains("metrics"));
  EXPECT_FALSE(spec["ingress"][1].contains("from"));

  ProcessResult plain = helm({"template", kRelease, chart_dir().string(), "--namespace", kNamespace, "--show-only",
                              "templates/networkpolicy.yaml"});
  ASSERT_EQ(plain.exit_code, 0) << describe(plain);
  EXPECT_NE(plain.output.find("kind: NetworkPolicy"), std::string::npos) << "the NetworkPolicy is on by default";
  ProcessResult off = helm({"template", kRelease, chart_dir().string(), "--set", "networkPolicy.enabled=false"});
  ASSERT_EQ(off.exit_code, 0) << describe(off);
  EXPECT_EQ(off.output.find("kind: NetworkPolicy"), std::string::npos) << "networkPolicy.enabled=false renders one";
  const fs::path values = plane_->dir() / "network-values.yaml";
  std::ofstream(values)
      << "networkPolicy:\n  enabled: true\n  runnerNamespaceSelector:\n    matchLabels: {team: data}\n"
         "  metricsFrom:\n    - namespaceSelector:\n        matchLabels: {name: monitoring}\n";
  ProcessResult narrowed = helm({"template", kRelease, chart_dir().string(), "--namespace", kNamespace, "--show-only",
                                 "templates/networkpolicy.yaml", "-f", values.string()});
  ASSERT_EQ(narrowed.exit_code, 0) << describe(narrowed);
  const fs::path narrowed_file = plane_->dir() / "network-policy.yaml";
  std::ofstream(narrowed_file) << narrowed.output;
  ProcessResult dry_run = kubectl({"apply", "--server-side", "--dry-run=server", "-f", narrowed_file.string()});
  EXPECT_EQ(dry_run.exit_code, 0) << describe(dry_run);
  EXPECT_NE(narrowed.output.find("matchLabels:\n              team: data"), std::string::npos) << narrowed.output;
  EXPECT_NE(narrowed.output.find(
                "from:\n        - namespaceSelector:\n            matchLabels:\n              name: monitoring"),
            std::string::npos)
      << narrowed.output;
  ProcessResult refused = helm({"template", kRelease, chart_dir().string(), "--set", "networkPolicy.allowAll=true"});
  EXPECT_NE(refused.exit_code, 0) << "an unknown networkPolicy value was accepted";
}

// rbac.namespaced: a Role in one namespace instead of the ClusterRole, the operator started with
// --namespace; its own Secrets readable by name only. Applied under another release beside the
// cluster-wide one, and checked with that release's ServiceAccount token.
TEST_F(HelmChartTest, TheNamespacedModeGrantsOneNamespaceAndTheOperatorsOwnSecretsByName) {
  const std::string ns = "ods-ns-system", watched = "team-b";
  for (const std::string& name : {ns, watched}) {
    ProcessResult created = kubectl({"create", "namespace", name});
    ASSERT_EQ(created.exit_code, 0) << describe(created);
  }
  ProcessResult rendered =
      helm({"template", "ods-ns", chart_dir().string(), "--namespace", ns, "--set", "rbac.namespaced=true", "--set",
            "rbac.watchNamespace=" + watched, "--set", "rbac.aggregateToUserRoles=false"});
  ASSERT_EQ(rendered.exit_code, 0) << describe(rendered);
  EXPECT_EQ(rendered.output.find("kind: ClusterRole"), std::string::npos) << "a ClusterRole in the namespaced mode";
  EXPECT_NE(rendered.output.find("- --namespace=" + watched + "\n"), std::string::npos) << rendered.output;
  const fs::path file = plane_->dir() / "namespaced.yaml";
  std::ofstream(file) << rendered.output;
  ProcessResult applied = kubectl({"apply", "--server-side", "-f", file.string()});
  ASSERT_EQ(applied.exit_code, 0) << describe(applied);
  EXPECT_NE(applied.output.find("role.rbac.authorization.k8s.io/ods-ns serverside-applied"), std::string::npos)
      << applied.output;

  auto account = plane_->service_account_kubeconfig(ns, "ods-ns");
  ASSERT_TRUE(account) << account.error();
  auto can_i = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"auth", "can-i"});
    return plane_->kubectl_as(*account, args).exit_code == 0;
  };
  bool bound = false;
  for (int attempt = 0; attempt < 100 && !bound; ++attempt) {
    bound = can_i({"watch", "dbtprojects.ods.dev", "-n", watched});
    if (!bound) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(bound) << "the Role in " << watched << " never took effect";
  const std::vector<Access> matrix = {
      {{"list", "dbtruns.ods.dev", "-n", watched}, true},
      {{"create", "jobs.batch", "-n", watched}, true},
      {{"create", "secrets", "-n", watched}, true},
      {{"get", "secrets", "-n", watched}, false},
      {{"get", "secrets/ods-state", "-n", ns}, true},
      {{"get", "secrets/ods-callback-key", "-n", ns}, true},
      {{"update", "leases.coordination.k8s.io", "-n", ns}, true},
      // Nothing beyond its namespace, and no other Secret of its own namespace.
      {{"list", "dbtprojects.ods.dev", "--all-namespaces"}, false},
      {{"list", "dbtprojects.ods.dev", "-n", kTeam}, false},
      {{"get", "secrets", "-n", kTeam}, false},
      {{"create", "secrets", "-n", kTeam}, false},
      {{"get", "secrets/another", "-n", ns}, false},
      {{"list", "secrets", "-n", watched}, false},
      {{"create", "jobs.batch", "-n", kTeam}, false},
  };
  for (const Access& access : matrix) {
    std::string what;
    for (const auto& arg : access.can_i) what += arg + " ";
    EXPECT_EQ(can_i(access.can_i), access.allowed) << what << (access.allowed ? "is refused" : "is allowed");
  }
}

// Users: ClusterRoles aggregated into Kubernetes' view, edit and admin roles. (The aggregation
// itself is kube-controller-manager's, which the test control plane does not run: the labels
// and rules are checked here; a user's access through `edit` waits for the real node.)
TEST_F(HelmChartTest, UsersGetDbtProjectsThroughTheAggregatedViewAndEditRoles) {
  ASSERT_EQ(applied_.exit_code, 0) << describe(applied_);
  auto role = [&](const std::string& name) {
    ProcessResult got = kubectl({"get", "clusterrole", name, "-o", "json"});
    EXPECT_EQ(got.exit_code, 0) << describe(got);
    return got.exit_code == 0 ? json::parse(got.output) : json::object();
  };
  const json view = role("ods-view"), edit = role("ods-edit");
  for (const std::string to : {"view", "edit", "admin"})
    EXPECT_EQ(view["metadata"]["labels"].value("rbac.authorization.k8s.io/aggregate-to-" + to, ""), "true") << to;
  EXPECT_FALSE(edit["metadata"]["labels"].contains("rbac.authorization.k8s.io/aggregate-to-view"));
  for (const std::string to : {"edit", "admin"})
    EXPECT_EQ(edit["metadata"]["labels"].value("rbac.authorization.k8s.io/aggregate-to-" + to, ""), "true") << to;
  EXPECT_EQ(view["rules"][0]["verbs"], json::parse(R"(["get", "list", "watch"])"));
  EXPECT_EQ(edit["rules"][0]["resources"], json::parse(R"(["dbtprojects", "dbtruns"])"));
  for (const json& rules : {view["rules"], edit["rules"]})
    for (const json& rule : rules) EXPECT_EQ(rule["apiGroups"], json::parse(R"(["ods.dev"])")) << rule.dump();
}

}  // namespace
}  // namespace ods::testing
