#pragma once
// HTTP for the REST client (private to operator/kube): cpprestsdk clients configured from a
// ClusterConfig (TLS, token), requests turned into ApiResult values.
#include <cpprest/http_client.h>

#include <chrono>
#include <memory>
#include <string>

#include "ods/kube/client.h"
#include "ods/kube/config.h"
#include "ods/kube/rest_client.h"

namespace ods::kube::detail {

struct Reply {
  int status = 0;
  std::string body;
};

// An ApiError for an answer that is not 2xx: the Status object's reason and message when the body
// is one, else the body's start.
ApiError error_from_reply(const std::string& verb, const std::string& path, const Reply& reply);

class HttpTransport {
 public:
  // Fails ("invalid_tls") when the CA, certificate or key does not load.
  [[nodiscard]] static Result<std::shared_ptr<HttpTransport>> make(const ClusterConfig& config,
                                                                   const ClientOptions& options);

  // One request on the shared client; the body (when not empty) sent with content_type. A 401
  // with a file token re-reads it and sends once more. Transport failures are status 0.
  ApiResult<Reply> send(const web::http::method& method, const std::string& path_and_query, const std::string& body,
                        const std::string& content_type);

  // A GET answered with headers only (the body is read by the caller as it arrives), on a new
  // client with the given timeout; cancelled through `token`. A non-2xx answer is an ApiError.
  ApiResult<web::http::http_response> open_stream(const std::string& path_and_query, std::chrono::seconds timeout,
                                                  const pplx::cancellation_token& token,
                                                  std::unique_ptr<web::http::client::http_client>& client);

 private:
  HttpTransport(const ClusterConfig& config, const ClientOptions& options);
  web::http::client::http_client_config client_config(std::chrono::seconds timeout) const;
  web::http::http_request make_request(const web::http::method& method, const std::string& path_and_query) const;
  // True when a 401 should be retried with a re-read token.
  bool refresh_token_after(int status);

  ClusterConfig config_;
  ClientOptions options_;
  std::unique_ptr<web::http::client::http_client> client_;
};

}  // namespace ods::kube::detail
