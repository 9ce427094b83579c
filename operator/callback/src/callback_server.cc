// CallbackServer on the operator's HTTP server (ods/http/server.h): a request the server could
// not read whole gets the protocol's JSON error for why (400, 408, 413, 431), a body that is not
// JSON by its Content-Type 415, and the rest goes to the CallbackService.
#include "ods/callback/callback_server.h"

#include <cctype>
#include <memory>

#include "ods/callback/protocol.h"
#include "ods/http/server.h"

namespace ods::callback {

namespace {

constexpr int kHandlerThreads = 8;  // requests handled at once (each may wait on the state store)

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
  Server(const CallbackServerOptions& options, std::unique_ptr<CallbackService> owned, CallbackService& service)
      : options_(options), owned_(std::move(owned)), service_(service) {}

  Result<void> listen() {
    http::ServerOptions http_options;
    http_options.host = options_.host;
    http_options.port = options_.port;
    http_options.max_body_bytes = options_.max_body_bytes;
    http_options.request_deadline = options_.body_deadline;
    http_options.threads = kHandlerThreads;
    auto started =
        http::start_server(http_options, [this](http::Request request) { return serve(std::move(request)); });
    if (!started) return std::unexpected(started.error());
    http_ = std::move(*started);
    return {};
  }
  std::string url() const override { return http_->url(); }

 private:
  http::Response serve(http::Request request) {
    const CallbackResponse response = answer(request);
    if (response.status >= 400 && options_.on_refused) {
      try {
        options_.on_refused({request.method, request.path, response.status, response.body});
      } catch (...) {  // a log sink failing never changes the answer
      }
    }
    return {response.status, "application/json", response.body};
  }

  CallbackResponse answer(http::Request& request) {
    using http::Refusal;
    if (request.refusal == Refusal::malformed)
      return {400, error_json("bad_request", "", "the request could not be read: " + request.problem)};
    if (request.refusal == Refusal::headers_too_large)
      return {431, error_json("headers_too_large", "", request.problem)};
    if (const auto type = request.header("Content-Type"); type && !is_json_media_type(*type))
      return {415, error_json("unsupported_media_type", "",
                              "Content-Type " + type->substr(0, 100) + ": the body must be application/json")};
    if (request.refusal == Refusal::body_too_large)
      return {413,
              error_json("too_large", "",
                         "the body is larger than the limit of " + std::to_string(options_.max_body_bytes) + " bytes")};
    if (request.refusal == Refusal::late) return {408, error_json("request_timeout", "", request.problem)};
    CallbackRequest r{request.method, request.path, request.header("Authorization").value_or(""),
                      std::move(request.body)};
    return service_.handle(r);
  }

  CallbackServerOptions options_;
  std::unique_ptr<CallbackService> owned_;  // the service, when the server owns it
  CallbackService& service_;
  std::unique_ptr<http::Server> http_;  // last: stopped (its handlers done) before the service goes
};

}  // namespace

Result<std::unique_ptr<CallbackServer>> start_callback_server(const CallbackServerOptions& options, CallbackDeps deps) {
  auto service = make_callback_service(std::move(deps));
  CallbackService& handler = *service;
  auto server = std::make_unique<Server>(options, std::move(service), handler);
  ODS_TRY_VOID(server->listen());
  return std::unique_ptr<CallbackServer>(std::move(server));
}

Result<std::unique_ptr<CallbackServer>> start_callback_server(const CallbackServerOptions& options,
                                                              CallbackService& service) {
  auto server = std::make_unique<Server>(options, nullptr, service);
  ODS_TRY_VOID(server->listen());
  return std::unique_ptr<CallbackServer>(std::move(server));
}

}  // namespace ods::callback
