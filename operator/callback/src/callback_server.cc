// CallbackServer on cpprestsdk's http_listener: reads each body up to the size limit and the
// body deadline and hands the request to the CallbackService.
#include "ods/callback/callback_server.h"

#include <cpprest/containerstream.h>
#include <cpprest/http_listener.h>

#include <cctype>
#include <chrono>
#include <future>
#include <memory>
#include <optional>

#include "ods/callback/protocol.h"

namespace ods::callback {

namespace {

using web::http::http_request;
using web::http::experimental::listener::http_listener;

constexpr std::size_t kChunkBytes = 256 * 1024;
constexpr std::size_t kDrainBytes = 16u << 20;
using Clock = std::chrono::steady_clock;

// The value of `task` once it finishes, or nullopt when it has not by `deadline` (it goes on;
// what it captured stays alive with it). Rethrows what the task threw.
template <class T>
std::optional<T> wait_until(const pplx::task<T>& task, Clock::time_point deadline) {
  auto done = std::make_shared<std::promise<T>>();
  auto result = done->get_future();
  task.then([done](const pplx::task<T>& t) {
    try {
      done->set_value(t.get());
    } catch (...) {
      done->set_exception(std::current_exception());
    }
  });
  if (result.wait_until(deadline) != std::future_status::ready) return std::nullopt;
  return result.get();
}

// What reading a body came to.
struct Body {
  enum class Outcome { read, too_large, late } outcome = Outcome::read;
  std::string text;  // when read
};

// The body, read until `deadline`. A body larger than `limit` is read on (and dropped) up to
// kDrainBytes more, so a client still sending gets to read the 413.
Body bounded_body(http_request& request, std::size_t limit, Clock::time_point deadline) {
  auto stream = request.body();
  concurrency::streams::container_buffer<std::string> buffer;
  std::size_t total = 0;
  while (true) {
    // A read still pending at the deadline holds `buffer` (a shared handle) itself.
    const auto n = wait_until(stream.read(buffer, kChunkBytes), deadline);
    if (!n) return {Body::Outcome::late, ""};
    if (*n == 0) break;
    total += *n;
    if (total > limit) {
      buffer.collection().clear();
      if (total > limit + kDrainBytes) break;
    }
  }
  if (total > limit) return {Body::Outcome::too_large, ""};
  return {Body::Outcome::read, std::move(buffer.collection())};
}

// Ends the reading of a body that did not arrive by its deadline. cpprestsdk writes an answer
// only once the whole announced body has arrived (asio_server_connection::do_response waits for
// content_ready()), and has no read timeout: completing the body with an error (the message
// base's _complete, what the library itself does when the connection fails) lets the answer go
// out; the answer's "Connection: close" then makes it close the connection.
void abandon_body(const http_request& request) {
  request._get_impl()->_complete(
      0, std::make_exception_ptr(web::http::http_exception("the body did not arrive before the deadline")));
}

// Whether a Content-Type header says JSON ("application/json", parameters such as a charset
// allowed, any case). An absent header is taken as JSON: the body is parsed as JSON anyway.
bool is_json_media_type(std::string value) {
  value = value.substr(0, value.find(';'));
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.pop_back();
  for (char& c : value) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return value == "application/json";
}

class Server final : public CallbackServer {
 public:
  Server(const CallbackServerOptions& options, std::unique_ptr<CallbackService> service)
      : url_("http://" + options.host + ":" + std::to_string(options.port)),
        limit_(options.max_body_bytes),
        body_deadline_(options.body_deadline),
        on_refused_(options.on_refused),
        service_(std::move(service)),
        listener_(web::uri(url_)) {
    listener_.support([this](const http_request& request) { serve(request); });
  }
  ~Server() override {
    try {
      listener_.close().wait();
    } catch (...) {  // closing a listener that failed to open
    }
  }
  std::string url() const override { return url_; }
  void open() { listener_.open().wait(); }

 private:
  void serve(http_request request) {
    const auto deadline = Clock::now() + body_deadline_;
    CallbackResponse response;
    bool late = false;
    try {
      const auto length = request.headers().content_length();
      const auto type = request.headers().find("Content-Type");
      Body body{Body::Outcome::too_large, ""};
      if (length <= limit_) {
        body = bounded_body(request, limit_, deadline);
      } else if (!wait_until(request.content_ready(), deadline)) {  // read (not by us) before the answer
        body.outcome = Body::Outcome::late;
      }
      late = body.outcome == Body::Outcome::late;
      if (type != request.headers().end() && !is_json_media_type(type->second)) {
        response = {415,
                    error_json("unsupported_media_type", "",
                               "Content-Type " + type->second.substr(0, 100) + ": the body must be application/json")};
      } else if (body.outcome == Body::Outcome::too_large) {
        response = {413, error_json("too_large", "",
                                    "the body is larger than the limit of " + std::to_string(limit_) + " bytes")};
      } else if (late) {
        response = {408, error_json("request_timeout", "",
                                    "the body announced did not arrive within " +
                                        std::to_string(body_deadline_.count()) + " ms")};
      } else {
        CallbackRequest r{request.method(), request.relative_uri().path(), "", std::move(body.text)};
        if (auto it = request.headers().find("Authorization"); it != request.headers().end())
          r.authorization = it->second;
        response = service_->handle(r);
      }
    } catch (const std::exception& e) {
      response = {400, error_json("bad_request", "", std::string("the request could not be read: ") + e.what())};
    }
    if (response.status >= 400 && on_refused_) {
      try {
        on_refused_({request.method(), request.relative_uri().path(), response.status, response.body});
      } catch (...) {  // a log sink failing never changes the answer
      }
    }
    web::http::http_response reply(static_cast<web::http::status_code>(response.status));
    reply.set_body(response.body, "application/json");
    if (late) {
      reply.headers().add("Connection", "close");
      abandon_body(request);
    }
    request.reply(reply).then([](const pplx::task<void>& t) {
      try {
        t.get();
      } catch (...) {  // the client went away
      }
    });
  }

  std::string url_;
  std::size_t limit_;
  std::chrono::milliseconds body_deadline_;
  std::function<void(const RefusedRequest&)> on_refused_;
  std::unique_ptr<CallbackService> service_;
  http_listener listener_;
};

}  // namespace

Result<std::unique_ptr<CallbackServer>> start_callback_server(const CallbackServerOptions& options, CallbackDeps deps) {
  std::unique_ptr<Server> server;
  try {
    server = std::make_unique<Server>(options, make_callback_service(std::move(deps)));
    server->open();
  } catch (const std::exception& e) {
    return fail("unavailable",
                "cannot listen on " + options.host + ":" + std::to_string(options.port) + ": " + e.what());
  }
  return std::unique_ptr<CallbackServer>(std::move(server));
}

}  // namespace ods::callback
