// EndpointServer over the loopback: /metrics serves what was fed, /healthz and /readyz follow
// their checks (with the reason when failing), anything else is 404.
#include "ods/telemetry/endpoint_server.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

#include "harness/loopback_port.h"
#include "metrics_scrape.h"
#include "ods/telemetry/operator_metrics.h"

namespace ods::telemetry {
namespace {

using ods::testing::free_loopback_port;
using ods::testing::loopback_http_get;

struct Response {
  int status = 0;
  std::string headers;
  std::string body;
};

// The status, headers and body of GET http://127.0.0.1:<port><path>.
Response get(int port, const std::string& path) {
  auto raw = loopback_http_get(port, path);
  EXPECT_TRUE(raw) << path << ": " << raw.error();
  if (!raw) return {};
  Response r;
  const auto head_end = raw->find("\r\n\r\n");
  r.headers = raw->substr(0, head_end);
  r.body = head_end == std::string::npos ? "" : raw->substr(head_end + 4);
  const auto space = r.headers.find(' ');
  if (space != std::string::npos) r.status = std::stoi(r.headers.substr(space + 1, 3));
  return r;
}

class EndpointServerTest : public ::testing::Test {
 protected:
  // Starts the server on a free loopback port (another port if one was taken meanwhile), on
  // 127.0.0.1 unless `options` names another host.
  void start(EndpointOptions options) {
    if (options.host == EndpointOptions{}.host) options.host = "127.0.0.1";
    for (int attempt = 0; attempt < 5 && !server_; ++attempt) {
      auto port = free_loopback_port();
      ASSERT_TRUE(port) << port.error();
      options.port = *port;
      auto started = EndpointServer::start(options, metrics_.collectable());
      if (started) {
        server_ = std::move(*started);
        port_ = *port;
      } else {
        last_error_ = started.error().message;
      }
    }
    ASSERT_TRUE(server_) << last_error_;
  }

  OperatorMetrics metrics_;
  std::unique_ptr<EndpointServer> server_;
  int port_ = 0;
  std::string last_error_;
};

TEST_F(EndpointServerTest, MetricsServesTheFamiliesWithTheValuesFed) {
  start({});
  metrics_.count_nodes("shop", NodeAction::build, "new_node", 12);
  metrics_.count_nodes("shop", NodeAction::reuse, "unchanged", 0);
  metrics_.set_reuse_ratio("shop", 0, 12);
  metrics_.observe_probe("shop", "source.shop.raw.orders", 0.04);
  metrics_.record_run("shop", "succeeded", 42);
  metrics_.set_leader(true);

  const Response r = get(port_, "/metrics");
  ASSERT_EQ(r.status, 200) << r.headers;
  EXPECT_NE(r.headers.find("text/plain; version=0.0.4"), std::string::npos) << r.headers;
  using testing::sample;
  EXPECT_EQ(sample(r.body, R"(ods_nodes_total{action="build",project="shop",reason="new_node"})"), 12.0) << r.body;
  EXPECT_EQ(sample(r.body, R"(ods_nodes_total{action="reuse",project="shop",reason="unchanged"})"), 0.0);
  EXPECT_EQ(sample(r.body, R"(ods_reuse_ratio{project="shop"})"), 0.0);
  EXPECT_EQ(sample(r.body, R"(ods_probe_latency_seconds_count{project="shop",source="source.shop.raw.orders"})"), 1.0);
  EXPECT_EQ(sample(r.body, R"(ods_runs_total{outcome="succeeded",project="shop"})"), 1.0);
  EXPECT_EQ(sample(r.body, "ods_leader"), 1.0);

  // A second scrape sees what was fed in between.
  metrics_.record_run("shop", "succeeded", 40);
  EXPECT_EQ(sample(get(port_, "/metrics").body, R"(ods_runs_total{outcome="succeeded",project="shop"})"), 2.0);
}

TEST_F(EndpointServerTest, ReadyzFollowsTheReadinessCheckAndSaysWhyNot) {
  std::mutex mutex;
  CheckStatus readiness = CheckStatus::failing("informers have not synced (dbtruns)");
  EndpointOptions options;
  options.readiness = [&] {
    std::lock_guard lock(mutex);
    return readiness;
  };
  start(options);

  Response r = get(port_, "/readyz");
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.body, "not ready: informers have not synced (dbtruns)\n");
  EXPECT_EQ(get(port_, "/healthz").status, 200) << "alive while not ready";

  {
    std::lock_guard lock(mutex);
    readiness = CheckStatus::passing();
  }
  r = get(port_, "/readyz");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ok\n");

  {
    std::lock_guard lock(mutex);
    readiness = CheckStatus::failing("state store unreachable");
  }
  EXPECT_EQ(get(port_, "/readyz").status, 503) << "readiness can be lost again";
}

TEST_F(EndpointServerTest, HealthzIsOkWhileTheProcessWorksAndFollowsALivenessCheck) {
  std::atomic<bool> alive = true;
  EndpointOptions options;
  options.liveness = [&] { return alive ? CheckStatus::passing() : CheckStatus::failing("the work loop is stuck"); };
  start(options);
  Response r = get(port_, "/healthz");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ok\n");
  EXPECT_EQ(get(port_, "/readyz").status, 200) << "no readiness check: ready";
  alive = false;
  r = get(port_, "/healthz");
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.body, "unhealthy: the work loop is stuck\n");
}

TEST_F(EndpointServerTest, AnEmptyHostListensOnEveryInterfaceAsTheChartsBindAddressAsks) {
  EndpointOptions options;
  options.host = "";
  start(options);
  EXPECT_EQ(server_->url(), "http://0.0.0.0:" + std::to_string(port_));
  EXPECT_EQ(get(port_, "/healthz").status, 200) << "reachable on the loopback too";
}

TEST_F(EndpointServerTest, AnyOtherPathIsNotFound) {
  start({});
  for (const std::string path : {"/", "/metrics/extra", "/debug/pprof", "/healthz2"}) {
    const Response r = get(port_, path);
    EXPECT_EQ(r.status, 404) << path;
  }
}

TEST_F(EndpointServerTest, StopClosesThePortAndATakenPortIsAClearError) {
  start({});
  EndpointOptions same;
  same.host = "127.0.0.1";
  same.port = port_;
  auto second = EndpointServer::start(same, metrics_.collectable());
  ASSERT_FALSE(second) << "two servers on one port";
  EXPECT_EQ(second.error().code, "listen_failed");
  EXPECT_NE(second.error().message.find("127.0.0.1:" + std::to_string(port_)), std::string::npos)
      << second.error().message;

  server_->stop();
  EXPECT_FALSE(loopback_http_get(port_, "/healthz")) << "still answering after stop()";
  server_->stop();  // idempotent
}

TEST(BindAddressTest, HostAndPortAsControllerRuntimeFlagsSpellThem) {
  EndpointOptions options;
  ASSERT_TRUE(parse_bind_address(":8080", options));
  EXPECT_EQ(options.host, "");
  EXPECT_EQ(options.port, 8080);
  ASSERT_TRUE(parse_bind_address("127.0.0.1:9090", options));
  EXPECT_EQ(options.host, "127.0.0.1");
  EXPECT_EQ(options.port, 9090);
  for (const std::string bad : {"8080", "", ":", ":0", ":65536", "host:80x", "127.0.0.1:-1"}) {
    auto r = parse_bind_address(bad, options);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, "invalid_argument");
    EXPECT_NE(r.error().message.find("\"" + bad + "\""), std::string::npos) << r.error().message;
  }
  EXPECT_EQ(options.port, 9090) << "a bad address changes nothing";
}

}  // namespace
}  // namespace ods::telemetry
