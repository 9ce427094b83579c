#pragma once
// Test harness: a private Prometheus (Debian's `prometheus` package, scripts/setup.sh; or
// $ODS_PROMETHEUS) on a free loopback port, scraping the given targets' /metrics.
//
// start() writes prometheus.yml (one job, `job_name`, static targets "127.0.0.1:<port>", the
// given scrape interval and timeout, global evaluation interval the same) into a temp dir,
// starts `prometheus --config.file … --storage.tsdb.path <dir>/data --web.listen-address
// 127.0.0.1:<port>` and waits until /-/ready answers 200. A port lost to a race is retried.
// query() and query_range() ask its HTTP API (/api/v1/query, /api/v1/query_range) and return
// the `data` member of a "success" answer, or the error Prometheus gave.
//
// Not thread-safe: one thread drives a server. The destructor stops it and removes the temp dir
// (kept when ODS_KEEP_TEST_DIRS is set).
#include <chrono>
#include <expected>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/background_process.h"

namespace ods::testing {

class PrometheusServer {
 public:
  struct Options {
    std::string job_name = "ods-operator";
    std::vector<int> target_ports;  // on 127.0.0.1, path /metrics
    std::chrono::seconds scrape_interval{1};
    std::chrono::seconds ready_timeout{60};
    // The targets' own `job` and `instance` labels win (a Pushgateway's scrape config).
    bool honor_labels = false;
  };

  [[nodiscard]] static std::expected<std::unique_ptr<PrometheusServer>, std::string> start(const Options& options);
  ~PrometheusServer();
  PrometheusServer(const PrometheusServer&) = delete;
  PrometheusServer& operator=(const PrometheusServer&) = delete;

  int port() const { return port_; }
  const Options& options() const { return options_; }
  // The result of `expr` at `time` (Unix seconds): {"resultType": …, "result": […]}.
  [[nodiscard]] std::expected<nlohmann::json, std::string> query(const std::string& expr, double time) const;
  // The result of `expr` from `start` to `end` every `step` seconds.
  [[nodiscard]] std::expected<nlohmann::json, std::string> query_range(const std::string& expr, double start,
                                                                       double end, double step) const;
  // The server's log tail (for failure messages).
  std::string log_tail(std::size_t lines = 30) const { return process_.log_tail(lines); }

 private:
  PrometheusServer(Options options, std::filesystem::path dir) : options_(std::move(options)), dir_(std::move(dir)) {}
  [[nodiscard]] std::expected<nlohmann::json, std::string> api_get(const std::string& path_and_query) const;

  Options options_;
  std::filesystem::path dir_;
  int port_ = 0;
  BackgroundProcess process_;
};

}  // namespace ods::testing
