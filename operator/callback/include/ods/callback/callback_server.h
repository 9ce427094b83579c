#pragma once
// The HTTP server runner pods report to (cpprestsdk http_listener): POST requests to
// /v1/runs/<namespace>/<name>/{inputs,results}, handled by a CallbackService.
#include <cstddef>
#include <memory>
#include <string>

#include "ods/base/result.h"
#include "ods/callback/callback_service.h"

namespace ods::callback {

inline constexpr std::size_t kDefaultMaxBodyBytes = 64u << 20;  // 64 MiB

struct CallbackServerOptions {
  std::string host = "0.0.0.0";                       // the address to listen on ("127.0.0.1" in tests)
  int port = 8080;                                    // a fixed port (pods reach it through a Service)
  std::size_t max_body_bytes = kDefaultMaxBodyBytes;  // larger bodies: 413, not read further
};

class CallbackServer {
 public:
  // Stops listening and waits for the requests being handled.
  virtual ~CallbackServer() = default;
  // "http://<host>:<port>", what it listens on.
  virtual std::string url() const = 0;
};

// Starts listening; requests are handled on cpprestsdk's thread pool.
// Errors: "unavailable" when the address can't be bound (e.g. the port is taken), naming it.
[[nodiscard]] Result<std::unique_ptr<CallbackServer>> start_callback_server(const CallbackServerOptions& options,
                                                                            CallbackDeps deps);

}  // namespace ods::callback
