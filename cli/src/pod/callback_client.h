#pragma once
// `ods pod`'s side of the runner pod ↔ controller protocol (docs/kubernetes.md): POSTs a
// body to the controller's callback server and waits for the answer, retrying while the
// controller is unreachable or answers 5xx (it may be restarting), for a bounded time.
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
};

struct CallbackAnswer {
  int status = 0;
  std::string body;
};

// POSTs `body` to <base_url>/v1/runs/<run>/<step>. Returns the first answer that is not a
// 5xx (4xx included: the caller reads the error). Each retry is told on `err`, with the
// wait before it (1 s, doubling, at most 15 s; after a follower's 503 not_leader 1 s again, as
// the Service's next connection may reach the leader). `sleep` is injectable for tests.
// Errors: "unavailable" when no such answer came within retry_for, saying the last failure.
[[nodiscard]] Result<CallbackAnswer> post_to_controller(const CallbackEndpoint& endpoint, const std::string& step,
                                                        const std::string& body, std::ostream& err,
                                                        const std::function<void(std::chrono::seconds)>& sleep = {});

// The code of a refused request's JSON error ({"error": {"code": ...}}), "" when it has none.
std::string callback_error_code(const CallbackAnswer& answer);

// The message of a refused request's JSON error ("<field>: <message>"), or the body itself.
std::string callback_error_text(const CallbackAnswer& answer);

}  // namespace ods::cli
