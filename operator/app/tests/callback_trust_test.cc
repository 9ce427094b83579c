// The CA runner pods get (callback_trust.h), from certificates a throw-away CA signed
// (harness/kube_certificates.h): --callback-tls-ca, else ca.crt beside the certificate, else the
// certificate itself; a CA that does not verify the certificate, or a certificate for another
// name than the callback URL's, is said in a sentence.
#include "callback_trust.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "harness/kube_certificates.h"

namespace ods::operator_app {
namespace {

namespace fs = std::filesystem;

class CallbackTrustTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ods-callback-trust-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    for (const char* sub : {"ca", "other", "secret", "bare"}) fs::create_directories(dir_ / sub);
    auto ca = ods::testing::make_kube_certificates(dir_ / "ca");
    ASSERT_TRUE(ca) << ca.error();
    auto other = ods::testing::make_kube_certificates(dir_ / "other");
    ASSERT_TRUE(other) << other.error();
    other_ca_ = other->ca_cert();
    ASSERT_TRUE(ods::testing::make_serving_certificate(*ca, "callback", {"DNS:ods.ods-system.svc"}));
    // A kubernetes.io/tls Secret as cert-manager writes it, and one without ca.crt.
    for (const char* sub : {"secret", "bare"}) {
      fs::copy_file(dir_ / "ca" / "callback.crt", dir_ / sub / "tls.crt");
      fs::copy_file(dir_ / "ca" / "callback.key", dir_ / sub / "tls.key");
    }
    fs::copy_file(ca->ca_cert(), dir_ / "secret" / "ca.crt");
  }
  void TearDown() override { fs::remove_all(dir_); }
  OperatorOptions with_tls(const std::string& sub, const std::string& ca = "") {
    OperatorOptions o;
    o.callback_url = "https://ods.ods-system.svc:8081";
    o.callback_tls_cert = (dir_ / sub / "tls.crt").string();
    o.callback_tls_key = (dir_ / sub / "tls.key").string();
    o.callback_tls_ca = ca;
    return o;
  }
  fs::path dir_;
  fs::path other_ca_;
};

TEST_F(CallbackTrustTest, TheCaBesideTheCertificateElseTheCertificateItselfVerifyIt) {
  for (const char* sub : {"secret", "bare"}) {
    SCOPED_TRACE(sub);
    const OperatorOptions o = with_tls(sub);
    auto trust = callback_trust(o);
    ASSERT_TRUE(trust) << trust.error().message;
    EXPECT_EQ(trust->file, (dir_ / sub / (std::string(sub) == "secret" ? "ca.crt" : "tls.crt")).string());
    EXPECT_EQ(callback_trust_problem(trust->ca_pem, o.callback_tls_cert, o.callback_url), "");
  }
}

TEST_F(CallbackTrustTest, AnotherCaOrAnotherHostIsSaidAndAnUnreadableCaRefused) {
  OperatorOptions o = with_tls("secret", other_ca_.string());
  auto trust = callback_trust(o);
  ASSERT_TRUE(trust) << trust.error().message;
  const std::string problem = callback_trust_problem(trust->ca_pem, o.callback_tls_cert, o.callback_url);
  EXPECT_NE(problem.find("unable to get local issuer certificate"), std::string::npos) << problem;
  EXPECT_NE(problem.find("for ods.ods-system.svc"), std::string::npos) << problem;
  o = with_tls("secret");
  o.callback_url = "https://ods.elsewhere.svc:8081";
  trust = callback_trust(o);
  ASSERT_TRUE(trust);
  const std::string host = callback_trust_problem(trust->ca_pem, o.callback_tls_cert, o.callback_url);
  EXPECT_NE(host.find("hostname mismatch"), std::string::npos) << host;
  auto missing = callback_trust(with_tls("secret", (dir_ / "absent.crt").string()));
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("absent.crt cannot be read"), std::string::npos) << missing.error().message;
  std::ofstream(dir_ / "not-pem.crt") << "hello\n";
  auto not_pem = callback_trust(with_tls("secret", (dir_ / "not-pem.crt").string()));
  ASSERT_FALSE(not_pem);
  EXPECT_NE(not_pem.error().message.find("holds no PEM certificate"), std::string::npos);
}

}  // namespace
}  // namespace ods::operator_app
