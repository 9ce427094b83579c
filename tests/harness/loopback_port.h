#pragma once
// Test harness: free TCP ports on 127.0.0.1 for the servers the tests start, and a plain HTTP
// GET to ask them whether they are up.
#include <expected>
#include <functional>
#include <string>

namespace ods::testing {

// A port on 127.0.0.1 that was free a moment ago (bound with port 0, then released). A server
// started on it may still lose a race for it; callers that can tell retry with another port.
std::expected<int, std::string> free_loopback_port();

// GET http://127.0.0.1:<port><path> (HTTP/1.0, 2 s timeouts): the response's status line, headers
// and body as received, or why no response came.
std::expected<std::string, std::string> loopback_http_get(int port, const std::string& path);

// Sends `request` (raw bytes: any HTTP, well-formed or not) to 127.0.0.1:<port> and returns what
// came back until the server closed the connection or `timeout_seconds` passed without a byte
// (possibly nothing); an error only when no connection could be made. A server closing while the
// request is still being sent is no error: its answer (e.g. a 413) is read. `on_sent`, when given,
// is called once the request was sent (the server's end holds it), before the answer is read.
std::expected<std::string, std::string> loopback_exchange(int port, const std::string& request, int timeout_seconds = 2,
                                                          const std::function<void()>& on_sent = {});

}  // namespace ods::testing
