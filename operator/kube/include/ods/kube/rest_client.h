#pragma once
// The Client (ods/kube/client.h) on cpprestsdk's http_client: HTTPS with the cluster's CA, client
// certificates and/or a bearer token from a ClusterConfig (ods/kube/config.h).
//
// - Every call is one HTTP request, synchronous, with ClientOptions::request_timeout; on a 401
//   with a token read from a file, the token is re-read and the request sent once more; a 429
//   (busy, or "storage is (re)initializing") is sent again after its Retry-After (1..10 s), up to
//   5 times.
// - An answer that is not 2xx becomes an ApiError: the HTTP status, the Status object's reason,
//   and a message "<VERB> <path>: <status> <reason>: <server message>". A transport failure
//   (refused, TLS, timeout) is status 0, reason "Unreachable".
// - watch() opens its own connection (timeout: the watch's timeoutSeconds plus a minute) and reads
//   one JSON event per line as the server sends it; cancel() closes that connection.
// - Thread-safe: calls from several threads share one connection pool.
#include <chrono>
#include <memory>
#include <string>

#include "ods/base/result.h"
#include "ods/kube/client.h"
#include "ods/kube/config.h"

namespace ods::kube {

struct ClientOptions {
  std::chrono::seconds request_timeout{30};
  std::string user_agent = "ods-operator";
};

// Fails ("invalid_tls") when the CA, client certificate or key cannot be loaded (naming which one
// and the config's origin). Connects lazily: an unreachable server fails the first call, not this.
[[nodiscard]] Result<std::unique_ptr<Client>> make_client(const ClusterConfig& config,
                                                          const ClientOptions& options = {});

}  // namespace ods::kube
