// What the chart renders for TLS on the callback (values callback.tls; docs/kubernetes.md, "TLS
// for the callback"), with `helm template` (helm from scripts/kube-binaries.sh helm):
//   - by default, without cert-manager's API: plain HTTP, nothing mounted, the notes warn;
//   - with cert-manager's API (--api-versions cert-manager.io/v1): a self-signed Issuer, a CA
//     Certificate, a CA Issuer and the serving Certificate for the Service's DNS names, whose
//     Secret the operator mounts and serves with over https://;
//   - with callback.tls.secretName: that Secret mounted and no cert-manager object, API or not;
//   - enabled: false: plain HTTP even with cert-manager; enabled: true without a certificate, and
//     values the schema refuses: helm fails, saying why.
#include <gtest/gtest.h>

#include <sstream>

#include "harness/dbt_project.h"
#include "harness/kube_control_plane.h"

namespace ods::testing {
namespace {

namespace fs = std::filesystem;

class HelmCallbackTls : public ::testing::Test {
 protected:
  void SetUp() override {
    auto found = helm_binary();
    ASSERT_TRUE(found) << found.error();
    helm_ = *found;
  }
  // helm template of release `ods` in ods-system with `args`; its stdout (and stderr on failure).
  ProcessResult render(std::vector<std::string> args) const {
    std::vector<std::string> command{helm_.string(), "template",  "ods", (source_dir() / "helm" / "ods").string(),
                                     "--namespace",  "ods-system"};
    command.insert(command.end(), args.begin(), args.end());
    const fs::path home = fs::temp_directory_path() / "ods-helm-callback-tls-home";
    return run_process(
        command, source_dir(),
        {"HELM_CACHE_HOME=" + (home / "cache").string(), "HELM_CONFIG_HOME=" + (home / "config").string(),
         "HELM_DATA_HOME=" + (home / "data").string()});
  }
  static int count(const std::string& text, const std::string& what) {
    int n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  }
  fs::path helm_;
};

TEST_F(HelmCallbackTls, WithoutACertificateTheCallbackIsPlainHttpAndTheNotesWarn) {
  ProcessResult r = render({});
  ASSERT_EQ(r.exit_code, 0) << r.errors;
  EXPECT_NE(r.output.find("--callback-url=http://ods.ods-system.svc:8081"), std::string::npos);
  EXPECT_EQ(r.output.find("--callback-tls-cert"), std::string::npos);
  EXPECT_EQ(r.output.find("cert-manager.io"), std::string::npos);
  // helm template does not render NOTES.txt: its plain-HTTP warning is checked as written.
  EXPECT_NE(read_text_file(source_dir() / "helm" / "ods" / "templates" / "NOTES.txt").find("over plain HTTP"),
            std::string::npos);
}

TEST_F(HelmCallbackTls, WithCertManagersApiACaAndAServingCertificateForTheServiceAreMade) {
  ProcessResult r = render({"--api-versions", "cert-manager.io/v1"});
  ASSERT_EQ(r.exit_code, 0) << r.errors;
  EXPECT_EQ(count(r.output, "\nkind: Issuer\n"), 2) << r.output;
  EXPECT_EQ(count(r.output, "\nkind: Certificate\n"), 2) << r.output;
  EXPECT_NE(r.output.find("  selfSigned: {}"), std::string::npos);
  EXPECT_NE(r.output.find("  isCA: true"), std::string::npos);
  EXPECT_NE(r.output.find("  ca:\n    secretName: ods-callback-ca"), std::string::npos) << r.output;
  for (const char* name :
       {"- ods\n", "- ods.ods-system\n", "- ods.ods-system.svc\n", "- ods.ods-system.svc.cluster.local\n"})
    EXPECT_NE(r.output.find("    " + std::string(name)), std::string::npos) << name;
  EXPECT_NE(r.output.find("  secretName: ods-callback-tls\n  duration: 2160h\n  renewBefore: 720h"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("--callback-url=https://ods.ods-system.svc:8081"), std::string::npos);
  EXPECT_NE(r.output.find("--callback-tls-cert=/etc/ods/callback-tls/tls.crt"), std::string::npos);
  EXPECT_NE(r.output.find("--callback-tls-key=/etc/ods/callback-tls/tls.key"), std::string::npos);
  EXPECT_NE(r.output.find("secret:\n            secretName: ods-callback-tls"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("mountPath: /etc/ods/callback-tls\n              readOnly: true"), std::string::npos);

  ProcessResult durations =
      render({"--api-versions", "cert-manager.io/v1", "--set", "callback.tls.certManager.duration=720h", "--set",
              "callback.tls.certManager.renewBefore=240h"});
  ASSERT_EQ(durations.exit_code, 0) << durations.errors;
  EXPECT_NE(durations.output.find("  duration: 720h\n  renewBefore: 240h"), std::string::npos);
}

TEST_F(HelmCallbackTls, ASecretYouCreateWinsAndEnabledFalseIsPlainHttp) {
  for (const bool with_api : {false, true}) {
    std::vector<std::string> args{"--set", "callback.tls.secretName=my-callback-tls"};
    if (with_api) args.insert(args.end(), {"--api-versions", "cert-manager.io/v1"});
    ProcessResult r = render(args);
    ASSERT_EQ(r.exit_code, 0) << r.errors;
    EXPECT_EQ(r.output.find("cert-manager.io"), std::string::npos) << "a Secret was given: no cert-manager object";
    EXPECT_NE(r.output.find("--callback-url=https://"), std::string::npos);
    EXPECT_NE(r.output.find("secretName: my-callback-tls"), std::string::npos);
  }
  ProcessResult off = render({"--api-versions", "cert-manager.io/v1", "--set", "callback.tls.enabled=false"});
  ASSERT_EQ(off.exit_code, 0) << off.errors;
  EXPECT_EQ(off.output.find("cert-manager.io"), std::string::npos);
  EXPECT_NE(off.output.find("--callback-url=http://"), std::string::npos);
}

TEST_F(HelmCallbackTls, RefusesTrueWithoutACertificateAndValuesOutsideTheSchema) {
  ProcessResult required = render({"--set", "callback.tls.enabled=true"});
  EXPECT_NE(required.exit_code, 0);
  EXPECT_NE(required.errors.find("callback.tls.enabled is true but there is no certificate"), std::string::npos)
      << required.errors;
  EXPECT_EQ(render({"--set", "callback.tls.enabled=true", "--api-versions", "cert-manager.io/v1"}).exit_code, 0);
  struct Bad {
    std::string set, says;
  };
  for (const Bad& bad : {Bad{"callback.tls.enabled=yes", "/callback/tls/enabled"},
                         Bad{"callback.tls.secretName=Not_A_Name", "/callback/tls/secretName"},
                         Bad{"callback.tls.certManager.duration=90d", "/callback/tls/certManager/duration"},
                         Bad{"callback.tls.issuer=x", "issuer"}}) {
    ProcessResult r = render({"--set", bad.set});
    EXPECT_NE(r.exit_code, 0) << bad.set;
    EXPECT_NE(r.errors.find(bad.says), std::string::npos) << bad.set << ": " << r.errors;
  }
}

}  // namespace
}  // namespace ods::testing
