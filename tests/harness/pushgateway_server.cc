#include "harness/pushgateway_server.h"

#include <cstdlib>
#include <thread>

#include "harness/loopback_port.h"
#include "harness/temp_dir.h"

namespace ods::testing {

namespace fs = std::filesystem;

namespace {

std::string pushgateway_binary() {
  const char* over = std::getenv("ODS_PUSHGATEWAY");
  return over && *over ? over : "/usr/bin/prometheus-pushgateway";
}

}  // namespace

std::expected<std::unique_ptr<PushgatewayServer>, std::string> PushgatewayServer::start(
    std::chrono::seconds ready_timeout) {
  if (!fs::exists(pushgateway_binary()))
    return std::unexpected(pushgateway_binary() +
                           " is missing: scripts/setup.sh installs Debian's prometheus-pushgateway");
  std::unique_ptr<PushgatewayServer> server(new PushgatewayServer(fresh_test_dir("pushgateway")));
  std::string last_error;
  for (int attempt = 0; attempt < 5; ++attempt) {
    auto port = free_loopback_port();
    if (!port) return std::unexpected(port.error());
    server->port_ = *port;
    auto started = server->process_.start(
        {pushgateway_binary(), "--web.listen-address=127.0.0.1:" + std::to_string(*port), "--log.level=warn"},
        server->dir_, server->dir_ / "pushgateway.log");
    if (!started) return std::unexpected(started.error());
    const auto deadline = std::chrono::steady_clock::now() + ready_timeout;
    while (std::chrono::steady_clock::now() < deadline && !server->process_.exited()) {
      auto ready = loopback_http_get(*port, "/-/ready");
      if (ready && ready->find(" 200 ") != std::string::npos) return server;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    last_error = server->process_.log_tail(20);
    const bool port_race = last_error.find("address already in use") != std::string::npos;
    server->process_.stop(std::chrono::seconds(5));
    if (!port_race) break;
  }
  return std::unexpected("the Pushgateway did not become ready:\n" + last_error);
}

PushgatewayServer::~PushgatewayServer() {
  process_.stop(std::chrono::seconds(5));
  if (std::getenv("ODS_KEEP_TEST_DIRS") == nullptr) {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
}

std::expected<std::string, std::string> PushgatewayServer::metrics() const {
  auto answer = loopback_http_get(port_, "/metrics");
  if (!answer) return std::unexpected(answer.error());
  const auto body = answer->find("\r\n\r\n");
  return body == std::string::npos ? *answer : answer->substr(body + 4);
}

}  // namespace ods::testing
