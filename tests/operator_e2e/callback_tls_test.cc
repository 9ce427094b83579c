// The callback over TLS end to end (docs/kubernetes.md, "TLS for the callback"): the operator
// serves it with a certificate from a folder laid out as the chart mounts a kubernetes.io/tls
// Secret (tls.crt, tls.key, ca.crt; made by a throw-away CA, harness/kube_certificates.h), the
// runner Job carries the CA as $ODS_CALLBACK_CA and an https:// URL, and a run of examples/shop
// completes over https. A replica started with another CA for the pods (a wrong
// --callback-tls-ca) says so in its log at start, and its run fails: the pod refuses the server,
// saying why, and never sends its token. Plain HTTP to the TLS port is answered 400.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "harness/kube_certificates.h"
#include "harness/loopback_port.h"
#include "operator_world.h"

namespace ods::testing {
namespace {

using kube::Json;
namespace fs = std::filesystem;

class CallbackTls : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto started = OperatorWorld::start();
    if (!started) {
      start_error_ = started.error();
      return;
    }
    world_ = std::move(*started);
  }
  static void TearDownTestSuite() { world_.reset(); }
  void SetUp() override { ASSERT_TRUE(world_) << start_error_; }
  void TearDown() override {
    if (!world_) return;
    if (HasFailure()) std::cerr << world_->diagnostics();
    world_->stop_all_operators();
  }
  static OperatorWorld& w() { return *world_; }

  // The Secret's files as the kubelet mounts them, and another CA's certificate.
  static void make_certificates(const fs::path& dir) {
    for (const char* sub : {"pki", "other-pki", "callback-tls"}) fs::create_directories(dir / sub);
    auto pki = make_kube_certificates(dir / "pki");  // the serving certificate names 127.0.0.1
    ASSERT_TRUE(pki) << pki.error();
    auto other = make_kube_certificates(dir / "other-pki");
    ASSERT_TRUE(other) << other.error();
    fs::copy_file(pki->serving_cert(), dir / "callback-tls" / "tls.crt", fs::copy_options::overwrite_existing);
    fs::copy_file(pki->serving_key(), dir / "callback-tls" / "tls.key", fs::copy_options::overwrite_existing);
    fs::copy_file(pki->ca_cert(), dir / "callback-tls" / "ca.crt", fs::copy_options::overwrite_existing);
  }
  static std::vector<std::string> tls_flags(const fs::path& dir) {
    return {"--callback-tls-cert", (dir / "callback-tls" / "tls.crt").string(), "--callback-tls-key",
            (dir / "callback-tls" / "tls.key").string()};
  }
  // The env entry `name` of the runner Job of run `run`.
  static std::string job_env(const std::string& run, const std::string& name) {
    ProcessResult job = w().plane().kubectl({"get", "job", run, "-n", kAppNamespace, "-o", "json"});
    if (job.exit_code != 0) return "(no job: " + job.errors + ")";
    for (const Json& item : Json::parse(job.output)["spec"]["template"]["spec"]["containers"][0]["env"])
      if (item.value("name", "") == name) return item.value("value", "");
    return "";
  }

  static inline std::unique_ptr<OperatorWorld> world_;
  static inline std::string start_error_;
};

TEST_F(CallbackTls, ARunCompletesOverHttpsAndAPodGivenTheWrongCaFailsSayingWhy) {
  const fs::path dir = w().plane().dir() / "callback-tls-test";
  make_certificates(dir);
  if (HasFatalFailure()) return;
  w().set_callback_tls_flags(tls_flags(dir));
  auto started = w().start_operator("tls-a");
  ASSERT_TRUE(started) << started.error();
  ASSERT_TRUE(w().wait_ready("tls-a")) << w().diagnostics();
  ASSERT_EQ(w().kubectl_apply(w().shop_project("shop")).exit_code, 0);

  // Plain HTTP to the TLS port: told it serves HTTPS.
  auto plain =
      loopback_exchange((*started)->callback_port,
                        "POST /v1/runs/analytics/x/inputs HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}", 10);
  ASSERT_TRUE(plain) << plain.error();
  EXPECT_NE(plain->find("This port serves HTTPS"), std::string::npos) << *plain;

  ASSERT_TRUE(w().create_run("tls-1", "shop"));
  auto finished = w().wait_finished("tls-1");
  ASSERT_TRUE(finished) << "the run did not finish";
  EXPECT_EQ(phase_of(*finished), "Succeeded") << finished->dump(2) << w().pod_log("tls-1");
  EXPECT_TRUE(job_env("tls-1", "ODS_CALLBACK_URL").starts_with("https://127.0.0.1:"));
  std::ifstream ca_file(dir / "callback-tls" / "ca.crt");
  const std::string ca((std::istreambuf_iterator<char>(ca_file)), {});
  EXPECT_EQ(job_env("tls-1", "ODS_CALLBACK_CA"), ca) << "the CA beside tls.crt is what pods get";
  w().stop_all_operators();

  // The pods given another CA: the replica says so at start, and the run fails in the pod.
  std::vector<std::string> wrong = tls_flags(dir);
  wrong.insert(wrong.end(), {"--callback-tls-ca", (dir / "other-pki" / "ca.crt").string()});
  w().set_callback_tls_flags(wrong);
  auto misconfigured = w().start_operator("tls-b");
  ASSERT_TRUE(misconfigured) << misconfigured.error();
  ASSERT_TRUE(w().wait_ready("tls-b")) << w().diagnostics();
  EXPECT_NE((*misconfigured)->process.log_tail(200).find("the callback's CA does not verify its certificate"),
            std::string::npos)
      << (*misconfigured)->process.log_tail(200);
  ASSERT_TRUE(w().create_run("tls-2", "shop"));
  auto refused = w().wait_finished("tls-2");
  ASSERT_TRUE(refused) << "the run did not finish";
  EXPECT_EQ(phase_of(*refused), "Failed") << refused->dump(2);
  const std::string log = w().pod_log("tls-2");
  EXPECT_NE(log.find("cannot be verified: its certificate is not signed by the CA in $ODS_CALLBACK_CA"),
            std::string::npos)
      << log;
  EXPECT_EQ(log.find("retrying"), std::string::npos) << "a certificate that can't be verified is not retried: " << log;
  w().set_callback_tls_flags({});
}

}  // namespace
}  // namespace ods::testing
