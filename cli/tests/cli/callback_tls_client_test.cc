// `ods pod`'s client over HTTPS (callback_client.h) against the operator's own HTTP server
// serving TLS (ods/http/server.h) on the loopback, with a throw-away CA the test makes
// (harness/kube_certificates.h): it verifies the server against the CA it is given and the URL's
// host name; a server signed by another CA, one whose certificate is for another name, and a
// plain-HTTP server are refused with a sentence saying which, at once (no retry) for the
// certificate, and the token never reaches them. A CA with an http:// URL is refused before
// anything is sent.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "callback_client.h"
#include "harness/kube_certificates.h"
#include "ods/http/server.h"

namespace ods::cli {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

class CallbackTlsClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ods-callback-tls-client-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    for (const char* sub : {"ca", "other"}) fs::create_directories(dir_ / sub);
    auto ca = ods::testing::make_kube_certificates(dir_ / "ca");
    ASSERT_TRUE(ca) << ca.error();
    ca_ = *ca;
    auto other = ods::testing::make_kube_certificates(dir_ / "other");
    ASSERT_TRUE(other) << other.error();
    other_ = *other;
    // Only the Service's name: a client reaching it as 127.0.0.1 must refuse it.
    ASSERT_TRUE(ods::testing::make_serving_certificate(ca_, "service-only", {"DNS:ods.ods-system.svc"}));
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The operator's server on a free loopback port: TLS with `cert`/`key`, or plain HTTP when empty.
  void serve(const fs::path& cert = {}, const fs::path& key = {}) {
    http::ServerOptions options;
    options.host = "127.0.0.1";
    options.port = 0;
    if (!cert.empty()) options.tls = http::TlsFiles{cert.string(), key.string()};
    auto started = http::start_server(options, [this](const http::Request& request) {
      std::lock_guard lock(mutex_);
      authorizations_.push_back(request.header("Authorization").value_or(""));
      return http::Response{200, "application/json", R"({"ok":true})"};
    });
    ASSERT_TRUE(started) << started.error().message;
    server_ = std::move(*started);
  }
  CallbackEndpoint endpoint(const std::string& host, const std::string& ca_pem) const {
    const std::string scheme = server_->url().substr(0, server_->url().find("://"));
    return CallbackEndpoint{scheme + "://" + host + ":" + std::to_string(server_->port()), "team/run-1",
                            "the-run-token", std::chrono::seconds(300), ca_pem};
  }
  Result<CallbackAnswer> post(const CallbackEndpoint& e) {
    return post_to_controller(e, "inputs", "{}", log_, [this](std::chrono::seconds) { ++sleeps_; });
  }
  std::vector<std::string> authorizations() {
    std::lock_guard lock(mutex_);
    return authorizations_;
  }

  fs::path dir_;
  ods::testing::KubeCertificates ca_, other_;
  std::unique_ptr<http::Server> server_;
  std::ostringstream log_;
  int sleeps_ = 0;
  std::mutex mutex_;
  std::vector<std::string> authorizations_;
};

TEST_F(CallbackTlsClientTest, VerifiesTheServerWithTheCaAndSendsTheToken) {
  serve(ca_.serving_cert(), ca_.serving_key());
  auto answer = post(endpoint("127.0.0.1", read_text(ca_.ca_cert())));
  ASSERT_TRUE(answer) << answer.error().message;
  EXPECT_EQ(answer->status, 200);
  EXPECT_EQ(answer->body, R"({"ok":true})");
  EXPECT_EQ(authorizations(), std::vector<std::string>{"Bearer the-run-token"});
}

TEST_F(CallbackTlsClientTest, AServerSignedByAnotherCaIsRefusedAtOnceAndNeverSentTheToken) {
  serve(other_.serving_cert(), other_.serving_key());
  auto answer = post(endpoint("127.0.0.1", read_text(ca_.ca_cert())));
  ASSERT_FALSE(answer);
  EXPECT_EQ(answer.error().code, "invalid_tls");
  EXPECT_NE(answer.error().message.find("cannot be verified: its certificate is not signed by the CA in "
                                        "$ODS_CALLBACK_CA (unable to get local issuer certificate)"),
            std::string::npos)
      << answer.error().message;
  EXPECT_EQ(sleeps_, 0) << "retried: " << log_.str();
  EXPECT_TRUE(authorizations().empty());
  // Without a CA the system's CAs are the trust, and they don't know the test's CA either.
  auto system = post(endpoint("127.0.0.1", ""));
  ASSERT_FALSE(system);
  EXPECT_NE(system.error().message.find("not signed by the system's CAs"), std::string::npos) << system.error().message;
}

TEST_F(CallbackTlsClientTest, ACertificateForAnotherNameIsRefusedNamingBoth) {
  serve(dir_ / "ca" / "service-only.crt", dir_ / "ca" / "service-only.key");
  auto answer = post(endpoint("127.0.0.1", read_text(ca_.ca_cert())));
  ASSERT_FALSE(answer);
  EXPECT_EQ(answer.error().code, "invalid_tls");
  EXPECT_NE(answer.error().message.find("its certificate is for ods.ods-system.svc, not 127.0.0.1"), std::string::npos)
      << answer.error().message;
  EXPECT_TRUE(authorizations().empty());
}

TEST_F(CallbackTlsClientTest, ACaWithAnHttpUrlIsRefusedBeforeAnythingIsSent) {
  serve();
  auto answer = post(endpoint("127.0.0.1", read_text(ca_.ca_cert())));
  ASSERT_FALSE(answer);
  EXPECT_EQ(answer.error().code, "usage");
  EXPECT_NE(answer.error().message.find("is not https://: refusing to send the run's token unencrypted"),
            std::string::npos)
      << answer.error().message;
  CallbackEndpoint not_pem = endpoint("127.0.0.1", "hello");
  not_pem.base_url = "https://127.0.0.1:1";
  EXPECT_NE(post(not_pem).error().message.find("holds no PEM certificate"), std::string::npos);
  EXPECT_TRUE(authorizations().empty());
}

TEST_F(CallbackTlsClientTest, HttpsToAPlainHttpServerSaysItMayNotServeTls) {
  serve();
  CallbackEndpoint e = endpoint("127.0.0.1", read_text(ca_.ca_cert()));
  e.base_url = "https://127.0.0.1:" + std::to_string(server_->port());
  e.retry_for = std::chrono::seconds(0);
  auto answer = post(e);
  ASSERT_FALSE(answer);
  EXPECT_NE(answer.error().message.find("does the server at " + e.base_url + " serve TLS?"), std::string::npos)
      << answer.error().message;
  for (const auto& authorization : authorizations()) EXPECT_EQ(authorization, "") << "the token went out";
}

}  // namespace
}  // namespace ods::cli
