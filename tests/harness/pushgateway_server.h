#pragma once
// Test harness: a private Prometheus Pushgateway (Debian's `prometheus-pushgateway` package,
// scripts/setup.sh; or $ODS_PUSHGATEWAY) on a free loopback port, keeping what it is pushed in
// memory only. start() waits until /-/ready answers 200; a port lost to a race is retried.
// Not thread-safe: one thread drives a server. The destructor stops it and removes its temp dir.
#include <chrono>
#include <expected>
#include <filesystem>
#include <memory>
#include <string>

#include "harness/background_process.h"

namespace ods::testing {

class PushgatewayServer {
 public:
  [[nodiscard]] static std::expected<std::unique_ptr<PushgatewayServer>, std::string> start(
      std::chrono::seconds ready_timeout = std::chrono::seconds(30));
  ~PushgatewayServer();
  PushgatewayServer(const PushgatewayServer&) = delete;
  PushgatewayServer& operator=(const PushgatewayServer&) = delete;

  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // Its /metrics as text (what Prometheus scrapes), or why not.
  [[nodiscard]] std::expected<std::string, std::string> metrics() const;
  std::string log_tail(std::size_t lines = 30) const { return process_.log_tail(lines); }

 private:
  explicit PushgatewayServer(std::filesystem::path dir) : dir_(std::move(dir)) {}
  std::filesystem::path dir_;
  int port_ = 0;
  BackgroundProcess process_;
};

}  // namespace ods::testing
