#pragma once
// The operator's HTTP endpoints (on the operator's HTTP server, ods/http/server.h; plain HTTP, as
// controller-runtime serves them on :8080 for the kubelet and Prometheus):
//   GET /metrics  200, every family of `metrics` in the Prometheus text format (0.0.4)
//   GET /healthz  200 "ok" while the liveness check passes, else 503 with its reason
//   GET /readyz   200 "ok" while the readiness check passes (e.g. informers synced, store
//                 reachable), else 503 "not ready: <reason>"
// Any other path answers 404; another method on these paths 405.
#include <prometheus/collectable.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "ods/base/result.h"

namespace ods::telemetry {

// The answer of a health check: ok, or why not (a sentence for the person reading the probe).
struct CheckStatus {
  bool ok = true;
  std::string reason;
  static CheckStatus passing() { return {}; }
  static CheckStatus failing(std::string why) { return {false, std::move(why)}; }
};
// Called on the server's threads, possibly concurrently: must be thread-safe and quick (the
// kubelet's probe times out after a second by default).
using HealthCheck = std::function<CheckStatus()>;

struct EndpointOptions {
  std::string host = "0.0.0.0";  // every interface ("" too, as in --metrics-bind-address=:8080)
  int port = 8080;
  HealthCheck liveness;   // empty: healthy while the process answers
  HealthCheck readiness;  // empty: ready while the process answers
};

// Reads a bind address as controller-runtime's flags spell it into options.host and .port:
// ":8080" (every interface), "0.0.0.0:8080", "127.0.0.1:9090", "localhost:8080".
// Errors: "invalid_argument" naming the address (no port, a port outside 1-65535, text after it).
[[nodiscard]] Result<void> parse_bind_address(std::string_view address, EndpointOptions& options);

class EndpointServer {
 public:
  // Listens on options.host:options.port and serves `metrics` until stop() or destruction.
  // Errors: "listen_failed" (port in use, bad host), with the address in the message.
  [[nodiscard]] static Result<std::unique_ptr<EndpointServer>> start(EndpointOptions options,
                                                                     std::shared_ptr<prometheus::Collectable> metrics);
  virtual ~EndpointServer() = default;
  // http://host:port (as given).
  virtual std::string url() const = 0;
  // Stops listening and waits for requests in flight. Idempotent. Not concurrent with itself.
  virtual void stop() = 0;
};

}  // namespace ods::telemetry
