#pragma once
// The operator's HTTP/1.1 server (Boost.Beast on Boost.Asio; docs/adr/0033-http-server-on-beast.md):
// the callback server runner pods report to and the /metrics, /healthz and /readyz endpoints both
// serve through it. It reads each request whole under limits that hold against any client: the
// header block and the body each have a size limit, a request has a deadline to arrive by, a
// chunked body's sizes are parsed strictly. A request it cannot read whole is still handed to
// the handler, marked with why (a Refusal), so the caller answers it in its own format.
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ods/base/result.h"

namespace ods::http {

// Why a request was not read whole. Its answer (whatever the handler says) closes the connection.
enum class Refusal {
  none,               // read whole: method, path, headers and body are all there
  malformed,          // not HTTP/1.x the parser accepts (request line, a header, a chunk size, …)
  headers_too_large,  // the header block is over ServerOptions::max_header_bytes
  body_too_large,     // the body (announced or sent) is over ServerOptions::max_body_bytes
  late,               // the request had not arrived whole by ServerOptions::request_deadline
};

struct Request {
  Refusal refusal = Refusal::none;
  std::string problem;  // when refused: a sentence saying what was wrong with the request
  std::string method;   // as sent ("POST"); "" when the request line could not be read
  std::string path;     // the target's path, the query left out; "" when not read
  std::vector<std::pair<std::string, std::string>> headers;  // in the order sent
  std::string body;                                          // only when read whole

  // The first header of that name (any case), or nullopt.
  std::optional<std::string> header(std::string_view name) const;
};

struct Response {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

struct ServerOptions {
  std::string host = "0.0.0.0";  // "" too means every interface; a name is resolved once
  int port = 8080;               // 0: a free port, which url() then names
  std::size_t max_body_bytes = 1u << 20;
  std::size_t max_header_bytes = 64u << 10;
  // How long a request may take to arrive whole, from when the server starts reading it (the
  // accept, or the previous answer sent). A connection that sent nothing by then is closed; a
  // request still arriving then is answered as Refusal::late.
  std::chrono::milliseconds request_deadline{30'000};
  int threads = 4;  // handlers run on these; a slow handler holds one
};

// Answers one request (its to keep: the body may be moved out). Called on a server thread,
// possibly concurrently with itself: must be thread-safe. An exception it throws is answered 500
// with its message.
using Handler = std::function<Response(Request)>;

class Server {
 public:
  // Stops accepting, lets the requests being handled finish and send their answers, closes every
  // connection and joins the threads.
  virtual ~Server() = default;
  // "http://<host>:<port>" with the port bound (the free one when options.port was 0).
  virtual std::string url() const = 0;
  virtual int port() const = 0;
};

// Binds host:port and serves until the Server is destroyed.
// Errors: "unavailable" naming the address when it can't be resolved or bound (e.g. the port is
// taken); "invalid_argument" for a port outside 0-65535 or no handler.
[[nodiscard]] Result<std::unique_ptr<Server>> start_server(const ServerOptions& options, Handler handler);

}  // namespace ods::http
