// TLS for the callback on the real node, as docs/kubernetes.md "TLS for the callback" says: a
// kubernetes.io/tls Secret the test creates (a certificate for the Service's DNS name signed by a
// CA the test makes, harness/kube_certificates.h), the chart installed with
// callback.tls.secretName, runner pods verifying the operator through the Service's name.
//   - The Secret's ca.crt first another CA's: the operator says at start that the CA does not
//     verify its certificate, and a run fails: its pod refuses the server, saying why.
//   - The right ca.crt, and the operator restarted as the doc's rotation says: a run of
//     examples/shop Succeeds over https, its Job carrying the https:// URL and the CA.
// The release is uninstalled afterwards, so that the other suites' ensure_operator_installed()
// installs the usual (plain HTTP: no cert-manager on this node) operator.
// Shard `node`; runs as root, serially.
#include <gtest/gtest.h>

#include <iostream>

#include "harness/kube_certificates.h"
#include "node_world.h"

namespace ods::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr const char* kNamespace = "tls-callback-shop";

class CallbackTlsOnNode : public NodeWorldTest {
 protected:
  void TearDown() override {
    if (!shared_world()) return;
    (void)w().kubectl({"delete", "namespace", kNamespace, "--wait=false"});
    (void)w().helm({"uninstall", "ods", "-n", "ods-system", "--wait", "--timeout", "3m"});
    (void)w().kubectl({"delete", "secret", "ods-callback-tls", "-n", "ods-system", "--ignore-not-found"});
  }
  // The Secret as the doc creates it: tls.crt and tls.key of the Service's certificate, `ca`.
  void create_tls_secret(const fs::path& pki, const fs::path& ca) {
    (void)w().kubectl({"delete", "secret", "ods-callback-tls", "-n", "ods-system", "--ignore-not-found"});
    ProcessResult created =
        w().kubectl({"-n", "ods-system", "create", "secret", "generic", "ods-callback-tls", "--type",
                     "kubernetes.io/tls", "--from-file=tls.crt=" + (pki / "callback.crt").string(),
                     "--from-file=tls.key=" + (pki / "callback.key").string(), "--from-file=ca.crt=" + ca.string()});
    ASSERT_EQ(created.exit_code, 0) << created.errors;
  }
  std::string operator_logs() {
    return w().kubectl({"logs", "-n", "ods-system", "-l", "app.kubernetes.io/name=ods", "--tail=200"}).output;
  }
};

TEST_F(CallbackTlsOnNode, AWrongCaFailsTheRunSayingWhyAndTheRightOneRunsOverHttps) {
  (void)w().helm({"uninstall", "ods", "-n", "ods-system", "--wait", "--timeout", "3m"});
  ASSERT_TRUE(create_operator_namespace(w()));
  const fs::path pki = w().dir() / "callback-tls";
  const fs::path other = w().dir() / "callback-tls-other";
  fs::remove_all(pki);
  fs::remove_all(other);
  fs::create_directories(pki);
  fs::create_directories(other);
  auto certificates = make_kube_certificates(pki);
  ASSERT_TRUE(certificates) << certificates.error();
  auto other_ca = make_kube_certificates(other);
  ASSERT_TRUE(other_ca) << other_ca.error();
  ASSERT_TRUE(make_serving_certificate(*certificates, "callback",
                                       {"DNS:ods.ods-system.svc", "DNS:ods.ods-system.svc.cluster.local"}));

  // ca.crt is another CA's: the operator starts, says so, and the pods refuse it.
  create_tls_secret(pki, other_ca->ca_cert());
  ProcessResult installed = w().helm(
      {"install", "ods", "helm/ods", "-n", "ods-system", "--wait", "--timeout", "5m", "--set",
       "image.operator.repository=" + w().operator_repository(), "--set", "image.operator.tag=" + w().operator_tag(),
       "--set", "image.operator.pullPolicy=Never", "--set", "callback.tls.secretName=ods-callback-tls"});
  ASSERT_EQ(installed.exit_code, 0) << installed.output << installed.errors << w().diagnostics("ods-system");
  EXPECT_NE(installed.output.find("over TLS (certificate from Secret ods-callback-tls)"), std::string::npos)
      << installed.output;
  std::string logs;
  EXPECT_TRUE(NodeWorld::wait(60s, [&] {
    logs = operator_logs();
    return logs.find("the callback's CA does not verify its certificate") != std::string::npos;
  })) << logs;

  auto secrets = create_shop_secrets(w(), kNamespace);
  ASSERT_TRUE(secrets) << secrets.error();
  ASSERT_EQ(w().apply(shop_project(w(), "shop"), kNamespace).exit_code, 0);
  std::vector<std::string> runs;
  ASSERT_TRUE(NodeWorld::wait(120s, [&] { return !(runs = w().runs_of(kNamespace, "shop")).empty(); }))
      << w().diagnostics(kNamespace);
  const std::string refused = runs.front();
  EXPECT_EQ(w().wait_run_finished(kNamespace, refused), "Failed") << w().diagnostics(kNamespace);
  const std::string pod_log = w().kubectl({"logs", "-n", kNamespace, "job/" + refused}).output;
  std::cout << "callback TLS: the pod given another CA says:\n" << pod_log << std::endl;
  EXPECT_NE(pod_log.find("https://ods.ods-system.svc:8081 cannot be verified: its certificate is not signed by the "
                         "CA in $ODS_CALLBACK_CA"),
            std::string::npos)
      << pod_log;

  // The right CA, and the operator restarted (the doc's rotation): a run Succeeds over https.
  create_tls_secret(pki, certificates->ca_cert());
  ASSERT_EQ(w().kubectl({"-n", "ods-system", "rollout", "restart", "deployment", "ods"}).exit_code, 0);
  ProcessResult rolled = w().kubectl({"-n", "ods-system", "rollout", "status", "deployment", "ods", "--timeout=5m"});
  ASSERT_EQ(rolled.exit_code, 0) << rolled.output << rolled.errors << w().diagnostics("ods-system");
  ProcessResult run = w().apply(std::string("apiVersion: ods.dev/v1alpha1\nkind: DbtRun\nmetadata:\n  name: shop-tls\n"
                                            "spec:\n  projectRef: {name: shop}\n"),
                                kNamespace);
  ASSERT_EQ(run.exit_code, 0) << run.output << run.errors;
  EXPECT_EQ(w().wait_run_finished(kNamespace, "shop-tls"), "Succeeded") << w().diagnostics(kNamespace);
  const std::string env =
      w().jsonpath({"job", "shop-tls", "-n", kNamespace}, "{.spec.template.spec.containers[0].env[*].name}");
  EXPECT_NE(env.find("ODS_CALLBACK_CA"), std::string::npos) << env;
  EXPECT_EQ(w().jsonpath({"job", "shop-tls", "-n", kNamespace},
                         "{.spec.template.spec.containers[0].env[?(@.name==\"ODS_CALLBACK_URL\")].value}"),
            "https://ods.ods-system.svc:8081");
}

}  // namespace
}  // namespace ods::testing
