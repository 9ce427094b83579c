#pragma once
// `ods pod`'s side of the runner pod ↔ controller protocol (docs/kubernetes.md): POSTs a
// body to the controller's callback server and waits for the answer, retrying while the
// controller is unreachable or answers 5xx (it may be restarting), for a bounded time.
// Over https:// it verifies the server: against `ca_pem` alone when given (the operator's CA,
// $ODS_CALLBACK_CA), else the system's trusted CAs, and always the URL's host name. A server it
// cannot verify is never sent the token, and is not retried: verification fails the same way
// on every attempt.
#include <chrono>
#include <functional>
#include <iosfwd>
#include <string>

#include "ods/base/result.h"

namespace ods::cli {

struct CallbackEndpoint {
  std::string base_url;                 // "http://ods.ods-system.svc:8081"
  std::string run;                      // "<namespace>/<name>"
  std::string token;                    // the run's token (Authorization: Bearer)
  std::chrono::seconds retry_for{300};  // how long to keep retrying one request
  std::string ca_pem{};                 // PEM CA certificate(s) an https:// server must chain to; "": the system's
};

struct CallbackAnswer {
  int status = 0;
  std::string body;
};

// POSTs `body` to <base_url>/v1/runs/<run>/<step>. Returns the first answer that is not a
// 5xx (4xx included: the caller reads the error). Each retry is told on `err`, with the
// wait before it (1 s, doubling, at most 15 s; after a follower's 503 not_leader 1 s again, as
// the Service's next connection may reach the leader). `sleep` is injectable for tests.
// Errors: "unavailable" when no such answer came within retry_for, saying the last failure;
// "invalid_tls" at once when the TLS handshake failed on the server's certificate (not signed by
// the CA, not for the URL's host name, expired), saying which, and "usage" when `ca_pem` is given
// with an http:// URL or holds no PEM certificate (the token never goes out unencrypted).
[[nodiscard]] Result<CallbackAnswer> post_to_controller(const CallbackEndpoint& endpoint, const std::string& step,
                                                        const std::string& body, std::ostream& err,
                                                        const std::function<void(std::chrono::seconds)>& sleep = {});

// Whether `endpoint` may be used: with a CA, an https:// URL and at least one PEM certificate.
// Errors ("usage") say which is wrong. post_to_controller checks it first.
[[nodiscard]] Result<void> check_callback_tls(const CallbackEndpoint& endpoint);

// The code of a refused request's JSON error ({"error": {"code": ...}}), "" when it has none.
std::string callback_error_code(const CallbackAnswer& answer);

// The message of a refused request's JSON error ("<field>: <message>"), or the body itself.
std::string callback_error_text(const CallbackAnswer& answer);

}  // namespace ods::cli
