#include "ods/telemetry/endpoint_server.h"

#include <malloc.h>
#include <prometheus/text_serializer.h>

#include <charconv>
#include <exception>
#include <utility>

#include "ods/http/server.h"

namespace ods::telemetry {

namespace {

const char* const kTextPlain = "text/plain; charset=utf-8";
const char* const kPrometheusText = "text/plain; version=0.0.4; charset=utf-8";
constexpr int kThreads = 2;  // a scrape and a probe at once

http::Response answer_check(const HealthCheck& check, const std::string& failing_prefix) {
  CheckStatus status = check ? check() : CheckStatus::passing();
  if (status.ok) return {200, kTextPlain, "ok\n"};
  return {503, kTextPlain, failing_prefix + status.reason + "\n"};
}

class BeastEndpointServer final : public EndpointServer {
 public:
  BeastEndpointServer(EndpointOptions options, std::shared_ptr<prometheus::Collectable> metrics)
      : options_(std::move(options)), metrics_(std::move(metrics)) {}
  ~BeastEndpointServer() override { stop(); }

  Result<void> open() {
    http::ServerOptions http_options;
    http_options.host = options_.host;
    http_options.port = options_.port;
    http_options.max_body_bytes = 64u << 10;  // GET and HEAD only: a body is read and ignored
    http_options.request_deadline = std::chrono::seconds(10);
    http_options.threads = kThreads;
    auto started = http::start_server(http_options, [this](const http::Request& request) { return handle(request); });
    if (!started)
      return fail("listen_failed",
                  "cannot serve the operator's endpoints on " + url_of(options_) + ": " + started.error().message);
    http_ = std::move(*started);
    return {};
  }

  std::string url() const override { return url_of(options_); }

  void stop() override { http_.reset(); }

 private:
  static std::string url_of(const EndpointOptions& options) {
    return "http://" + options.host + ":" + std::to_string(options.port);
  }

  http::Response handle(const http::Request& request) {
    if (request.refusal != http::Refusal::none) return {400, kTextPlain, "bad request: " + request.problem + "\n"};
    const std::string& path = request.path;
    if (path != "/metrics" && path != "/healthz" && path != "/readyz")
      return {404, kTextPlain, "not found: " + path + " (try /metrics, /healthz or /readyz)\n"};
    if (request.method != "GET" && request.method != "HEAD")
      return {405, kTextPlain, "method not allowed: " + request.method + "\n"};
    try {
      if (path == "/metrics") {
        http::Response scraped{200, kPrometheusText, prometheus::TextSerializer().Serialize(metrics_->Collect())};
        // The collected families are freed by now, in small blocks between long-lived ones, which
        // glibc keeps: give their pages back (14 MB resident a scrape at 1,000 projects,
        // docs/benchmarks.md "Operator at scale").
        malloc_trim(0);
        return scraped;
      }
      if (path == "/healthz") return answer_check(options_.liveness, "unhealthy: ");
      return answer_check(options_.readiness, "not ready: ");
    } catch (const std::exception& e) {
      return {500, kTextPlain, std::string("error: ") + e.what() + "\n"};
    }
  }

  EndpointOptions options_;
  std::shared_ptr<prometheus::Collectable> metrics_;
  std::unique_ptr<http::Server> http_;  // last: stopped before the rest goes
};

}  // namespace

Result<void> parse_bind_address(std::string_view address, EndpointOptions& options) {
  const auto colon = address.rfind(':');
  const std::string_view port_text = colon == std::string_view::npos ? "" : address.substr(colon + 1);
  int port = 0;
  const auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || ec != std::errc() || end != port_text.data() + port_text.size() || port < 1 || port > 65535)
    return fail("invalid_argument", "bind address \"" + std::string(address) +
                                        "\" must be [host]:port with a port 1-65535, like :8080 or 127.0.0.1:8080");
  options.host = std::string(address.substr(0, colon));
  options.port = port;
  return {};
}

Result<std::unique_ptr<EndpointServer>> EndpointServer::start(EndpointOptions options,
                                                              std::shared_ptr<prometheus::Collectable> metrics) {
  if (!metrics) return fail("invalid_argument", "EndpointServer::start needs the metrics to serve");
  if (options.port <= 0 || options.port > 65535)
    return fail("listen_failed", "the endpoints' port must be 1-65535, not " + std::to_string(options.port));
  if (options.host.empty()) options.host = "0.0.0.0";
  auto server = std::make_unique<BeastEndpointServer>(std::move(options), std::move(metrics));
  ODS_TRY_VOID(server->open());
  return std::unique_ptr<EndpointServer>(std::move(server));
}

}  // namespace ods::telemetry
