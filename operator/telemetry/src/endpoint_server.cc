#include "ods/telemetry/endpoint_server.h"

#include <cpprest/http_listener.h>
#include <malloc.h>
#include <prometheus/text_serializer.h>

#include <charconv>
#include <exception>
#include <utility>

namespace ods::telemetry {

namespace {

using web::http::http_request;
using web::http::methods;
using web::http::status_codes;
using web::http::experimental::listener::http_listener;

const char* const kTextPlain = "text/plain; charset=utf-8";
const char* const kPrometheusText = "text/plain; version=0.0.4; charset=utf-8";

void answer(const http_request& request, web::http::status_code status, const std::string& body,
            const char* content_type = kTextPlain) {
  // reply() fails only when the client went away: nothing to do about it.
  request.reply(status, body, content_type).then([](const pplx::task<void>& sent) {
    try {
      sent.get();
    } catch (const std::exception&) {
    }
  });
}

void answer_check(const http_request& request, const HealthCheck& check, const std::string& failing_prefix) {
  CheckStatus status = check ? check() : CheckStatus::passing();
  if (status.ok)
    answer(request, status_codes::OK, "ok\n");
  else
    answer(request, status_codes::ServiceUnavailable, failing_prefix + status.reason + "\n");
}

class CppRestEndpointServer final : public EndpointServer {
 public:
  CppRestEndpointServer(EndpointOptions options, std::shared_ptr<prometheus::Collectable> metrics, std::string url)
      : options_(std::move(options)), metrics_(std::move(metrics)), url_(std::move(url)), listener_(url_) {
    listener_.support([this](const http_request& request) { handle(request); });
  }
  ~CppRestEndpointServer() override { stop(); }

  Result<void> open() {
    try {
      listener_.open().wait();
      open_ = true;
      return {};
    } catch (const std::exception& e) {
      return fail("listen_failed", "cannot serve the operator's endpoints on " + url_ + ": " + e.what());
    }
  }

  std::string url() const override { return url_; }

  void stop() override {
    if (!open_) return;
    open_ = false;
    try {
      listener_.close().wait();
    } catch (const std::exception&) {
      // Closing a listener whose socket already failed: it is closed either way.
    }
  }

 private:
  void handle(const http_request& request) {
    const std::string path = request.relative_uri().path();
    if (path != "/metrics" && path != "/healthz" && path != "/readyz") {
      answer(request, status_codes::NotFound, "not found: " + path + " (try /metrics, /healthz or /readyz)\n");
      return;
    }
    if (request.method() != methods::GET && request.method() != methods::HEAD) {
      answer(request, status_codes::MethodNotAllowed, "method not allowed: " + request.method() + "\n");
      return;
    }
    try {
      if (path == "/metrics") {
        answer(request, status_codes::OK, prometheus::TextSerializer().Serialize(metrics_->Collect()), kPrometheusText);
        // The collected families are freed by now, in small blocks between long-lived ones, which
        // glibc keeps: give their pages back (14 MB resident a scrape at 1,000 projects,
        // docs/benchmarks.md "Operator at scale").
        malloc_trim(0);
      } else if (path == "/healthz")
        answer_check(request, options_.liveness, "unhealthy: ");
      else
        answer_check(request, options_.readiness, "not ready: ");
    } catch (const std::exception& e) {
      answer(request, status_codes::InternalError, std::string("error: ") + e.what() + "\n");
    }
  }

  EndpointOptions options_;
  std::shared_ptr<prometheus::Collectable> metrics_;
  std::string url_;
  http_listener listener_;
  bool open_ = false;
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
  std::string url = "http://" + options.host + ":" + std::to_string(options.port);
  std::unique_ptr<CppRestEndpointServer> server;
  try {
    server = std::make_unique<CppRestEndpointServer>(std::move(options), std::move(metrics), url);
  } catch (const std::exception& e) {
    return fail("listen_failed", "cannot serve the operator's endpoints on " + url + ": " + e.what());
  }
  if (auto opened = server->open(); !opened) return std::unexpected(opened.error());
  return server;
}

}  // namespace ods::telemetry
