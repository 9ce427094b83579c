// The HTTP server with ServerOptions::tls, over loopback with a throw-away CA the test makes
// (harness/kube_certificates.h): a real TLS handshake by a client that trusts that CA and checks
// the server's name; a client checking another name, one trusting another CA, and one speaking
// plain HTTP to the TLS port are refused before any request reaches the handler; files that
// can't be loaded are refused naming them; a renewed certificate written over the files is
// served to new connections, and a half-written one is not.
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "gtest/gtest.h"
#include "harness/kube_certificates.h"
#include "harness/loopback_port.h"
#include "ods/http/server.h"

namespace ods::http {
namespace {

namespace asio = boost::asio;
namespace fs = std::filesystem;

struct TlsAnswer {
  bool handshake = false;
  std::string verify_error;  // OpenSSL's reason when the handshake failed on the certificate
  std::string raw;           // the answer's bytes
};

// A TLS client as the runner pod's is: trusts only `ca`, checks the certificate names `host`.
TlsAnswer tls_exchange(int port, const fs::path& ca, const std::string& host, const std::string& request) {
  asio::io_context io;
  asio::ssl::context context(asio::ssl::context::tls_client);
  context.load_verify_file(ca.string());
  context.set_verify_mode(asio::ssl::verify_peer);
  asio::ssl::stream<asio::ip::tcp::socket> stream(io, context);
  SSL_set_tlsext_host_name(stream.native_handle(), host.c_str());
  SSL_set1_host(stream.native_handle(), host.c_str());
  stream.next_layer().connect({asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)});
  TlsAnswer answer;
  boost::system::error_code error;
  stream.handshake(asio::ssl::stream_base::client, error);
  if (error) {
    const long result = SSL_get_verify_result(stream.native_handle());
    answer.verify_error = result == X509_V_OK ? error.message() : X509_verify_cert_error_string(result);
    return answer;
  }
  answer.handshake = true;
  asio::write(stream, asio::buffer(request), error);
  std::string buffer(4096, '\0');
  for (;;) {
    const std::size_t n = stream.read_some(asio::buffer(buffer), error);
    answer.raw.append(buffer, 0, n);
    if (error) break;
  }
  return answer;
}

const std::string kGet = "GET /v1/ping HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\nConnection: close\r\n\r\n";

class TlsServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ods-tls-server-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    for (const char* sub : {"ca", "other-ca"}) fs::create_directories(dir_ / sub);
    auto ca = ods::testing::make_kube_certificates(dir_ / "ca");
    ASSERT_TRUE(ca) << ca.error();
    ca_ = *ca;
    auto other = ods::testing::make_kube_certificates(dir_ / "other-ca");
    ASSERT_TRUE(other) << other.error();
    other_ca_ = *other;
    // The callback Service's name and the loopback address, as the chart's certificate has.
    auto made = ods::testing::make_serving_certificate(ca_, "callback", {"DNS:ods.ods-system.svc", "IP:127.0.0.1"});
    ASSERT_TRUE(made) << made.error();
    fs::copy_file(dir_ / "ca" / "callback.crt", dir_ / "tls.crt");
    fs::copy_file(dir_ / "ca" / "callback.key", dir_ / "tls.key");
  }
  void TearDown() override { fs::remove_all(dir_); }

  void start(std::chrono::milliseconds reload_check = std::chrono::milliseconds(10'000)) {
    ServerOptions options;
    options.host = "127.0.0.1";
    options.port = 0;
    options.tls = TlsFiles{(dir_ / "tls.crt").string(), (dir_ / "tls.key").string(), reload_check,
                           [this](bool loaded, const std::string& sentence) {
                             std::lock_guard lock(mutex_);
                             reloads_.emplace_back(loaded, sentence);
                           }};
    auto started = start_server(options, [this](const Request& request) {
      std::lock_guard lock(mutex_);
      ++handled_;
      return Response{200, "text/plain", "pong " + request.path};
    });
    ASSERT_TRUE(started) << started.error().message;
    server_ = std::move(*started);
  }
  int handled() {
    std::lock_guard lock(mutex_);
    return handled_;
  }

  fs::path dir_;
  ods::testing::KubeCertificates ca_, other_ca_;
  std::unique_ptr<Server> server_;
  std::mutex mutex_;
  int handled_ = 0;
  std::vector<std::pair<bool, std::string>> reloads_;
};

TEST_F(TlsServerTest, AClientTrustingTheCaGetsItsAnswerOverTls) {
  start();
  EXPECT_EQ(server_->url(), "https://127.0.0.1:" + std::to_string(server_->port()));
  for (const char* host : {"ods.ods-system.svc", "127.0.0.1"}) {
    SCOPED_TRACE(host);
    const TlsAnswer answer = tls_exchange(server_->port(), ca_.ca_cert(), host, kGet);
    ASSERT_TRUE(answer.handshake) << answer.verify_error;
    EXPECT_TRUE(answer.raw.starts_with("HTTP/1.1 200 ")) << answer.raw;
    EXPECT_NE(answer.raw.find("pong /v1/ping"), std::string::npos) << answer.raw;
  }
  EXPECT_EQ(handled(), 2);
}

TEST_F(TlsServerTest, AClientCheckingAnotherNameOrTrustingAnotherCaIsRefusedBeforeTheHandler) {
  start();
  const TlsAnswer wrong_host = tls_exchange(server_->port(), ca_.ca_cert(), "ods.elsewhere.svc", kGet);
  EXPECT_FALSE(wrong_host.handshake);
  EXPECT_NE(wrong_host.verify_error.find("hostname mismatch"), std::string::npos) << wrong_host.verify_error;
  const TlsAnswer unknown_ca = tls_exchange(server_->port(), other_ca_.ca_cert(), "ods.ods-system.svc", kGet);
  EXPECT_FALSE(unknown_ca.handshake);
  EXPECT_NE(unknown_ca.verify_error.find("unable to get local issuer certificate"), std::string::npos)
      << unknown_ca.verify_error;
  EXPECT_EQ(handled(), 0);
  EXPECT_TRUE(tls_exchange(server_->port(), ca_.ca_cert(), "ods.ods-system.svc", kGet).handshake) << "still up";
}

TEST_F(TlsServerTest, PlainHttpToTheTlsPortIsAnsweredThatItServesHttpsAndNeverHandled) {
  start();
  auto raw = ods::testing::loopback_exchange(server_->port(), kGet, 10);
  ASSERT_TRUE(raw) << raw.error();
  EXPECT_TRUE(raw->starts_with("HTTP/1.1 400 Bad Request\r\n")) << *raw;
  EXPECT_NE(raw->find("This port serves HTTPS"), std::string::npos) << *raw;
  EXPECT_EQ(handled(), 0);
  EXPECT_TRUE(tls_exchange(server_->port(), ca_.ca_cert(), "127.0.0.1", kGet).handshake) << "still up";
}

TEST_F(TlsServerTest, FilesThatCannotBeLoadedAreRefusedNamingThem) {
  ServerOptions options;
  options.host = "127.0.0.1";
  options.port = 0;
  auto with = [&](const fs::path& cert, const fs::path& key) {
    options.tls = TlsFiles{cert.string(), key.string()};
    return start_server(options, [](const Request&) { return Response{}; });
  };
  const auto missing = with(dir_ / "absent.crt", dir_ / "tls.key");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, "invalid_tls");
  EXPECT_NE(missing.error().message.find((dir_ / "absent.crt").string() + " cannot be read: no such file"),
            std::string::npos)
      << missing.error().message;
  const auto mismatched = with(dir_ / "tls.crt", other_ca_.serving_key());
  ASSERT_FALSE(mismatched);
  EXPECT_NE(mismatched.error().message.find("is not the key of the certificate"), std::string::npos)
      << mismatched.error().message;
  std::ofstream(dir_ / "garbage.crt") << "not a certificate\n";
  const auto garbage = with(dir_ / "garbage.crt", dir_ / "tls.key");
  ASSERT_FALSE(garbage);
  EXPECT_NE(garbage.error().message.find("garbage.crt holds no PEM certificate"), std::string::npos)
      << garbage.error().message;
}

TEST_F(TlsServerTest, ARenewedCertificateIsServedToNewConnectionsAndAHalfWrittenOneIsNot) {
  start(std::chrono::milliseconds(0));
  ASSERT_TRUE(tls_exchange(server_->port(), ca_.ca_cert(), "127.0.0.1", kGet).handshake);
  // Half written: a certificate that does not match the key yet. The old pair keeps serving.
  fs::copy_file(other_ca_.serving_cert(), dir_ / "tls.crt", fs::copy_options::overwrite_existing);
  EXPECT_TRUE(tls_exchange(server_->port(), ca_.ca_cert(), "127.0.0.1", kGet).handshake);
  // Whole: the other CA's pair. New connections get it.
  fs::copy_file(other_ca_.serving_key(), dir_ / "tls.key", fs::copy_options::overwrite_existing);
  const TlsAnswer renewed = tls_exchange(server_->port(), other_ca_.ca_cert(), "127.0.0.1", kGet);
  EXPECT_TRUE(renewed.handshake) << renewed.verify_error;
  EXPECT_FALSE(tls_exchange(server_->port(), ca_.ca_cert(), "127.0.0.1", kGet).handshake);
  std::lock_guard lock(mutex_);
  ASSERT_EQ(reloads_.size(), 2u);
  EXPECT_FALSE(reloads_[0].first);
  EXPECT_NE(reloads_[0].second.find("is not the key of the certificate"), std::string::npos) << reloads_[0].second;
  EXPECT_TRUE(reloads_[1].first) << reloads_[1].second;
}

}  // namespace
}  // namespace ods::http
