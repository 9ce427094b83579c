#pragma once
// The HTTP server runner pods report to (on the operator's HTTP server, ods/http/server.h): POST requests to
// /v1/runs/<namespace>/<name>/{inputs,results}, handled by a CallbackService.
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "ods/base/result.h"
#include "ods/callback/callback_service.h"

namespace ods::callback {

inline constexpr std::size_t kDefaultMaxBodyBytes = 64u << 20;  // 64 MiB
inline constexpr std::chrono::milliseconds kDefaultBodyDeadline{30'000};

// A request the server answered with a 4xx or 5xx status, as it is logged: never the
// Authorization header nor the body (they may carry a token or a key).
struct RefusedRequest {
  std::string method;
  std::string path;
  int status = 0;
  std::string body;  // the error JSON sent back ({"error": {"code", "field", "message"}})
};

struct CallbackServerOptions {
  std::string host = "0.0.0.0";                       // the address to listen on ("127.0.0.1" in tests)
  int port = 8080;                                    // a fixed port (pods reach it through a Service)
  std::size_t max_body_bytes = kDefaultMaxBodyBytes;  // larger bodies: 413, not read further
  // Told each refused request (on the handling thread; must be thread-safe). Empty: not told.
  std::function<void(const RefusedRequest&)> on_refused;
  // How long a request may take to arrive whole (headers and body), from when the server starts
  // reading it: a client announcing more than it sends gets 408 (request_timeout) then, and its
  // connection is closed; a connection that sends nothing that long is closed.
  std::chrono::milliseconds body_deadline = kDefaultBodyDeadline;
};

class CallbackServer {
 public:
  // Stops listening and waits for the requests being handled.
  virtual ~CallbackServer() = default;
  // "http://<host>:<port>", what it listens on.
  virtual std::string url() const = 0;
};

// Starts listening; requests are handled on the HTTP server's threads (8 at once).
// Errors: "unavailable" when the address can't be bound (e.g. the port is taken), naming it.
[[nodiscard]] Result<std::unique_ptr<CallbackServer>> start_callback_server(const CallbackServerOptions& options,
                                                                            CallbackDeps deps);
// The same in front of `service` (e.g. a LeaderGate, leader_gate.h), which must outlive the server.
[[nodiscard]] Result<std::unique_ptr<CallbackServer>> start_callback_server(const CallbackServerOptions& options,
                                                                            CallbackService& service);

}  // namespace ods::callback
