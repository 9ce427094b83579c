#include "harness/prometheus_server.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "harness/loopback_port.h"
#include "harness/temp_dir.h"

namespace ods::testing {

namespace fs = std::filesystem;

namespace {

constexpr int kPortAttempts = 5;

std::string prometheus_binary() {
  const char* over = std::getenv("ODS_PROMETHEUS");
  return over && *over ? over : "/usr/bin/prometheus";
}

std::string url_encode(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

std::string number(double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", value);
  return buf;
}

}  // namespace

std::expected<std::unique_ptr<PrometheusServer>, std::string> PrometheusServer::start(const Options& options) {
  if (!fs::exists(prometheus_binary()))
    return std::unexpected(prometheus_binary() + " is missing: scripts/setup.sh installs Debian's prometheus");
  std::unique_ptr<PrometheusServer> server(new PrometheusServer(options, fresh_test_dir("prometheus")));
  const std::string interval = std::to_string(options.scrape_interval.count()) + "s";
  std::string targets;
  for (int port : options.target_ports)
    targets += (targets.empty() ? "" : ", ") + std::string("'127.0.0.1:") + std::to_string(port) + "'";
  const fs::path config = server->dir_ / "prometheus.yml";
  std::ofstream(config) << "global:\n  scrape_interval: " << interval << "\n  scrape_timeout: " << interval
                        << "\n  evaluation_interval: " << interval << "\nscrape_configs:\n  - job_name: '"
                        << options.job_name << "'\n    honor_labels: " << (options.honor_labels ? "true" : "false")
                        << "\n    metrics_path: /metrics\n    static_configs:\n      - targets: [" << targets << "]\n";
  std::string last_error;
  for (int attempt = 0; attempt < kPortAttempts; ++attempt) {
    auto port = free_loopback_port();
    if (!port) return std::unexpected(port.error());
    server->port_ = *port;
    auto started = server->process_.start({prometheus_binary(), "--config.file=" + config.string(),
                                           "--storage.tsdb.path=" + (server->dir_ / "data").string(),
                                           "--web.listen-address=127.0.0.1:" + std::to_string(*port),
                                           "--storage.tsdb.retention.time=1d", "--log.level=warn"},
                                          server->dir_, server->dir_ / "prometheus.log");
    if (!started) return std::unexpected(started.error());
    const auto deadline = std::chrono::steady_clock::now() + options.ready_timeout;
    while (std::chrono::steady_clock::now() < deadline && !server->process_.exited()) {
      auto ready = loopback_http_get(*port, "/-/ready");
      if (ready && ready->find(" 200 ") != std::string::npos) return server;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    last_error = server->process_.log_tail(20);
    const bool port_race = last_error.find("address already in use") != std::string::npos;
    server->process_.stop(std::chrono::seconds(5));
    if (!port_race) break;
  }
  return std::unexpected("Prometheus did not become ready:\n" + last_error);
}

PrometheusServer::~PrometheusServer() {
  process_.stop(std::chrono::seconds(5));
  if (std::getenv("ODS_KEEP_TEST_DIRS") == nullptr) {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
}

std::expected<nlohmann::json, std::string> PrometheusServer::api_get(const std::string& path_and_query) const {
  auto answer = loopback_http_get(port_, path_and_query);
  if (!answer) return std::unexpected(answer.error());
  const auto body_at = answer->find("\r\n\r\n");
  if (body_at == std::string::npos) return std::unexpected("no HTTP body in: " + *answer);
  auto doc = nlohmann::json::parse(answer->substr(body_at + 4), nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return std::unexpected("not JSON: " + answer->substr(body_at + 4));
  if (doc.value("status", "") != "success")
    return std::unexpected(doc.value("errorType", "") + ": " + doc.value("error", ""));
  return doc["data"];
}

std::expected<nlohmann::json, std::string> PrometheusServer::query(const std::string& expr, double time) const {
  return api_get("/api/v1/query?query=" + url_encode(expr) + "&time=" + number(time));
}

std::expected<nlohmann::json, std::string> PrometheusServer::query_range(const std::string& expr, double start,
                                                                         double end, double step) const {
  return api_get("/api/v1/query_range?query=" + url_encode(expr) + "&start=" + number(start) + "&end=" + number(end) +
                 "&step=" + number(step));
}

}  // namespace ods::testing
