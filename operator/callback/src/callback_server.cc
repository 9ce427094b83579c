// CallbackServer on cpprestsdk's http_listener: reads each body up to the size limit and
// hands the request to the CallbackService.
#include "ods/callback/callback_server.h"

#include <cpprest/containerstream.h>
#include <cpprest/http_listener.h>

#include <cctype>

#include "ods/callback/protocol.h"

namespace ods::callback {

namespace {

using web::http::http_request;
using web::http::experimental::listener::http_listener;

constexpr std::size_t kChunkBytes = 256 * 1024;
constexpr std::size_t kDrainBytes = 16u << 20;

// The body, or nullopt when it is larger than `limit`. A larger body is read on (and
// dropped) up to kDrainBytes more, so a client still sending gets to read the 413.
std::optional<std::string> bounded_body(http_request& request, std::size_t limit) {
  auto stream = request.body();
  concurrency::streams::container_buffer<std::string> buffer;
  std::size_t total = 0;
  while (true) {
    const std::size_t n = stream.read(buffer, kChunkBytes).get();
    if (n == 0) break;
    total += n;
    if (total > limit) {
      buffer.collection().clear();
      if (total > limit + kDrainBytes) break;
    }
  }
  if (total > limit) return std::nullopt;
  return std::move(buffer.collection());
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
    CallbackResponse response;
    try {
      const auto length = request.headers().content_length();
      const auto type = request.headers().find("Content-Type");
      std::optional<std::string> body;
      if (length <= limit_) body = bounded_body(request, limit_);
      if (type != request.headers().end() && !is_json_media_type(type->second)) {
        response = {415,
                    error_json("unsupported_media_type", "",
                               "Content-Type " + type->second.substr(0, 100) + ": the body must be application/json")};
      } else if (!body) {
        response = {413, error_json("too_large", "",
                                    "the body is larger than the limit of " + std::to_string(limit_) + " bytes")};
      } else {
        CallbackRequest r{request.method(), request.relative_uri().path(), "", std::move(*body)};
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
    request.reply(static_cast<web::http::status_code>(response.status), response.body, "application/json")
        .then([](const pplx::task<void>& t) {
          try {
            t.get();
          } catch (...) {  // the client went away
          }
        });
  }

  std::string url_;
  std::size_t limit_;
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
