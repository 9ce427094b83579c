#include "http_transport.h"

#include <algorithm>
#include <boost/asio/ssl.hpp>
#include <thread>

namespace ods::kube::detail {

namespace {

using web::http::http_request;
using web::http::http_response;
using web::http::client::http_client;
using web::http::client::http_client_config;

boost::asio::const_buffer as_buffer(const std::string& pem) { return boost::asio::buffer(pem.data(), pem.size()); }

// Loads the CA, client certificate and key into an OpenSSL context; throws boost's system_error.
void configure_tls(const ClusterConfig& config, boost::asio::ssl::context& context) {
  const PemSource& ca = config.certificate_authority;
  if (!ca.data.empty()) context.add_certificate_authority(as_buffer(ca.data));
  if (!ca.file.empty()) context.load_verify_file(ca.file.string());
  const PemSource& cert = config.client_certificate;
  if (!cert.data.empty()) context.use_certificate_chain(as_buffer(cert.data));
  if (!cert.file.empty()) context.use_certificate_chain_file(cert.file.string());
  const PemSource& key = config.client_key;
  if (!key.data.empty()) context.use_private_key(as_buffer(key.data), boost::asio::ssl::context::pem);
  if (!key.file.empty()) context.use_private_key_file(key.file.string(), boost::asio::ssl::context::pem);
}

std::string method_name(const web::http::method& method) { return method; }

// A 429 (the server is busy or its storage is initializing) is retried this often, after the
// Retry-After it asks for (1 s when it names none, at most 10 s).
constexpr int kBusyRetries = 5;

std::chrono::seconds retry_after(const http_response& response) {
  std::chrono::seconds wait(1);
  const auto& headers = response.headers();
  if (auto it = headers.find("Retry-After"); it != headers.end()) {
    try {
      wait = std::chrono::seconds(std::stoi(it->second));
    } catch (const std::exception&) {
    }
  }
  return std::clamp(wait, std::chrono::seconds(1), std::chrono::seconds(10));
}

ApiError unreachable(const std::string& verb, const std::string& path, const std::string& what) {
  return ApiError{0, "Unreachable", verb + " " + path + ": " + what};
}

}  // namespace

ApiError error_from_reply(const std::string& verb, const std::string& path, const Reply& reply) {
  ApiError error{reply.status, "", ""};
  std::string server_message;
  const Json status = Json::parse(reply.body, nullptr, false);
  if (status.is_object() && status.value("kind", "") == "Status") {
    error.reason = status.value("reason", "");
    server_message = status.value("message", "");
  } else {
    server_message = reply.body.substr(0, 500);
  }
  if (error.reason.empty()) error.reason = "Status" + std::to_string(reply.status);
  error.message = verb + " " + path + ": " + std::to_string(reply.status) + " " + error.reason + ": " + server_message;
  return error;
}

HttpTransport::HttpTransport(const ClusterConfig& config, const ClientOptions& options)
    : config_(config), options_(options) {}

Result<std::shared_ptr<HttpTransport>> HttpTransport::make(const ClusterConfig& config, const ClientOptions& options) {
  if (config.server.empty()) return fail("invalid_config", config.origin + ": no server URL");
  try {
    boost::asio::ssl::context probe(boost::asio::ssl::context::sslv23);
    configure_tls(config, probe);
  } catch (const std::exception& e) {
    return fail("invalid_tls", config.origin + ": the CA, client certificate or key does not load: " + e.what());
  }
  std::shared_ptr<HttpTransport> transport(new HttpTransport(config, options));
  try {
    transport->client_ =
        std::make_unique<http_client>(web::uri(config.server), transport->client_config(options.request_timeout));
  } catch (const std::exception& e) {
    return fail("invalid_config", config.origin + ": server " + config.server + ": " + e.what());
  }
  return transport;
}

http_client_config HttpTransport::client_config(std::chrono::seconds timeout) const {
  http_client_config client_config;
  client_config.set_timeout(timeout);
  client_config.set_validate_certificates(!config_.insecure_skip_tls_verify);
  ClusterConfig tls = config_;
  client_config.set_ssl_context_callback([tls](boost::asio::ssl::context& context) { configure_tls(tls, context); });
  return client_config;
}

http_request HttpTransport::make_request(const web::http::method& method, const std::string& path_and_query) const {
  http_request request(method);
  request.set_request_uri(web::uri(path_and_query));
  request.headers().add("Accept", "application/json");
  request.headers().add("User-Agent", options_.user_agent);
  if (config_.token) request.headers().add("Authorization", "Bearer " + config_.token->token());
  return request;
}

bool HttpTransport::refresh_token_after(int status) {
  if (status != 401 || !config_.token || config_.token->file().empty()) return false;
  config_.token->invalidate();
  return true;
}

ApiResult<Reply> HttpTransport::send(const web::http::method& method, const std::string& path_and_query,
                                     const std::string& body, const std::string& content_type) {
  const std::string verb = method_name(method);
  bool token_refreshed = false;
  for (int busy = 0;;) {
    Reply reply;
    std::chrono::seconds wait(0);
    try {
      http_request request = make_request(method, path_and_query);
      if (!body.empty()) request.set_body(body, content_type);
      http_response response = client_->request(request).get();
      reply.status = response.status_code();
      reply.body = response.extract_utf8string(true).get();
      if (reply.status == 429) wait = retry_after(response);
    } catch (const std::exception& e) {
      return std::unexpected(unreachable(verb, path_and_query, e.what()));
    }
    if (reply.status >= 200 && reply.status < 300) return reply;
    if (!token_refreshed && refresh_token_after(reply.status)) {
      token_refreshed = true;
      continue;
    }
    if (reply.status == 429 && busy++ < kBusyRetries) {
      std::this_thread::sleep_for(wait);
      continue;
    }
    return std::unexpected(error_from_reply(verb, path_and_query, reply));
  }
}

ApiResult<http_response> HttpTransport::open_stream(const std::string& path_and_query, std::chrono::seconds timeout,
                                                    const pplx::cancellation_token& token,
                                                    std::unique_ptr<http_client>& client) {
  bool token_refreshed = false;
  for (int busy = 0;;) {
    http_response response;
    try {
      client = std::make_unique<http_client>(web::uri(config_.server), client_config(timeout));
      response = client->request(make_request(web::http::methods::GET, path_and_query), token).get();
    } catch (const std::exception& e) {
      return std::unexpected(unreachable("GET", path_and_query, e.what()));
    }
    const int status = response.status_code();
    if (status >= 200 && status < 300) return response;
    Reply reply{status, ""};
    try {
      reply.body = response.extract_utf8string(true).get();
    } catch (const std::exception&) {
    }
    if (!token_refreshed && refresh_token_after(status)) {
      token_refreshed = true;
      continue;
    }
    if (status == 429 && busy++ < kBusyRetries) {
      std::this_thread::sleep_for(retry_after(response));
      continue;
    }
    return std::unexpected(error_from_reply("GET", path_and_query, reply));
  }
}

}  // namespace ods::kube::detail
