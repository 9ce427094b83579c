#include "callback_client.h"

#include <cpprest/http_client.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <thread>

namespace ods::cli {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::chrono::seconds kFirstWait{1}, kLongestWait{15};
constexpr std::chrono::seconds kAnswerTimeout{600};  // planning a large project takes a while

// What the certificate check of one attempt found (OpenSSL's verification of the server's chain).
struct TlsVerdict {
  bool checked = false;  // the server presented a certificate and it was checked
  int error = X509_V_OK;
  std::string names;  // the server certificate's subjectAltName DNS/IP entries, for the message
};

// The server certificate's DNS and IP names, comma-separated.
std::string names_of(X509* certificate) {
  std::string out;
  auto* names = static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(certificate, NID_subject_alt_name, nullptr, nullptr));
  for (int i = 0; names && i < sk_GENERAL_NAME_num(names); ++i) {
    const GENERAL_NAME* name = sk_GENERAL_NAME_value(names, i);
    std::string text;
    if (name->type == GEN_DNS) {
      text.assign(reinterpret_cast<const char*>(ASN1_STRING_get0_data(name->d.dNSName)),
                  ASN1_STRING_length(name->d.dNSName));
    } else if (name->type == GEN_IPADD && ASN1_STRING_length(name->d.iPAddress) == 4) {
      const unsigned char* ip = ASN1_STRING_get0_data(name->d.iPAddress);
      text = std::to_string(ip[0]) + "." + std::to_string(ip[1]) + "." + std::to_string(ip[2]) + "." +
             std::to_string(ip[3]);
    }
    if (!text.empty()) out += (out.empty() ? "" : ", ") + text;
  }
  GENERAL_NAMES_free(names);
  return out.empty() ? "none" : out;
}

// OpenSSL's verification of the chain, with what it found kept for the error message.
int verify_and_keep(X509_STORE_CTX* context, void* verdict_slot) {
  const int ok = X509_verify_cert(context);
  auto& verdict = *static_cast<TlsVerdict*>(verdict_slot);
  verdict.checked = true;
  verdict.error = ok == 1 ? X509_V_OK : X509_STORE_CTX_get_error(context);
  if (X509* leaf = X509_STORE_CTX_get0_cert(context)) verdict.names = names_of(leaf);
  return ok;
}

// The certificates in `pem` as a store trusting exactly them (a leaf or intermediate given as
// the CA is trusted as well: partial chains); nullptr when it holds none.
X509_STORE* trust_store(const std::string& pem) {
  X509_STORE* store = X509_STORE_new();
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), BIO_free);
  int added = 0;
  while (X509* certificate = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    added += X509_STORE_add_cert(store, certificate);
    X509_free(certificate);
  }
  ERR_clear_error();
  if (added == 0) {
    X509_STORE_free(store);
    return nullptr;
  }
  return store;
}

// Sets up the client's TLS: the CA (when given) as the only trust, the host name checked by
// OpenSSL too (so a mismatch has its own error), the verdict kept.
void configure_tls(boost::asio::ssl::context& context, const std::string& ca_pem, const std::string& host,
                   TlsVerdict& verdict) {
  SSL_CTX* native = context.native_handle();
  if (!ca_pem.empty()) {
    if (X509_STORE* store = trust_store(ca_pem)) SSL_CTX_set_cert_store(native, store);  // replaces the system's
    X509_VERIFY_PARAM_set_flags(SSL_CTX_get0_param(native), X509_V_FLAG_PARTIAL_CHAIN);
  }
  X509_VERIFY_PARAM* param = SSL_CTX_get0_param(native);
  if (X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str()) != 1)  // not an IP address: a DNS name
    X509_VERIFY_PARAM_set1_host(param, host.c_str(), host.size());
  SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION);
  SSL_CTX_set_cert_verify_callback(native, verify_and_keep, &verdict);
}

// Why the server's certificate was refused, for the pod's log and the run's failure.
std::string tls_refusal(const CallbackEndpoint& endpoint, const std::string& host, const TlsVerdict& verdict) {
  const std::string trusted = endpoint.ca_pem.empty() ? "the system's CAs" : "the CA in $ODS_CALLBACK_CA";
  std::string why;
  if (verdict.error == X509_V_ERR_HOSTNAME_MISMATCH || verdict.error == X509_V_ERR_IP_ADDRESS_MISMATCH) {
    why = "its certificate is for " + verdict.names + ", not " + host;
  } else if (verdict.error == X509_V_ERR_CERT_HAS_EXPIRED || verdict.error == X509_V_ERR_CERT_NOT_YET_VALID) {
    why = std::string("its certificate is not valid now (") + X509_verify_cert_error_string(verdict.error) + ")";
  } else {
    why = "its certificate is not signed by " + trusted + " (" + X509_verify_cert_error_string(verdict.error) + ")";
  }
  return "the callback server at " + endpoint.base_url + " cannot be verified: " + why +
         "; the run's token was not sent. The operator's --callback-tls-ca (the chart's callback.tls Secret's ca.crt) "
         "must be the CA that signed its --callback-tls-cert, for the callback URL's host name";
}

// One attempt: the answer, or why none came.
Result<CallbackAnswer> post_once(const CallbackEndpoint& endpoint, const std::string& path, const std::string& body) {
  TlsVerdict verdict;
  std::string host;
  try {
    web::http::client::http_client_config config;
    config.set_timeout(kAnswerTimeout);
    const web::uri base(endpoint.base_url);
    host = base.host();
    if (base.scheme() == "https")
      config.set_ssl_context_callback(
          [&](boost::asio::ssl::context& context) { configure_tls(context, endpoint.ca_pem, host, verdict); });
    web::http::client::http_client client(base, config);
    web::http::http_request request(web::http::methods::POST);
    request.set_request_uri(path);
    request.headers().add("Authorization", "Bearer " + endpoint.token);
    request.set_body(body, "application/json");
    auto response = client.request(request).get();
    return CallbackAnswer{response.status_code(), response.extract_string(true).get()};
  } catch (const std::exception& e) {
    if (verdict.checked && verdict.error != X509_V_OK) return fail("invalid_tls", tls_refusal(endpoint, host, verdict));
    std::string what = e.what();
    if (what.find("SSL handshake") != std::string::npos)
      what += " (before any certificate was checked: does the server at " + endpoint.base_url +
              " serve TLS? A callback server without --callback-tls-cert serves plain HTTP)";
    return fail("unavailable", what);
  }
}

}  // namespace

Result<void> check_callback_tls(const CallbackEndpoint& endpoint) {
  if (endpoint.ca_pem.empty()) return {};
  if (!endpoint.base_url.starts_with("https://"))
    return fail("usage", "a CA is given for the callback ($ODS_CALLBACK_CA or --callback-ca) but its URL " +
                             endpoint.base_url + " is not https://: refusing to send the run's token unencrypted");
  X509_STORE* store = trust_store(endpoint.ca_pem);
  if (!store) return fail("usage", "the callback's CA ($ODS_CALLBACK_CA or --callback-ca) holds no PEM certificate");
  X509_STORE_free(store);
  return {};
}

Result<CallbackAnswer> post_to_controller(const CallbackEndpoint& endpoint, const std::string& step,
                                          const std::string& body, std::ostream& err,
                                          const std::function<void(std::chrono::seconds)>& sleep) {
  ODS_TRY_VOID(check_callback_tls(endpoint));
  const std::string path = "/v1/runs/" + endpoint.run + "/" + step;
  const auto deadline = Clock::now() + endpoint.retry_for;
  auto wait = kFirstWait;
  for (int attempt = 1;; ++attempt) {
    auto answer = post_once(endpoint, path, body);
    if (!answer && answer.error().code == "invalid_tls") return answer;  // the same on every attempt
    std::string failure;
    if (answer && answer->status < 500) return answer;
    failure = answer ? "answered " + std::to_string(answer->status) + ": " + callback_error_text(*answer)
                     : "unreachable: " + answer.error().message;
    if (Clock::now() + wait > deadline)
      return fail("unavailable", "the controller at " + endpoint.base_url + " gave no answer to " + step + " within " +
                                     std::to_string(endpoint.retry_for.count()) + " s; last: " + failure);
    err << "ods: the controller at " << endpoint.base_url << " " << failure << "; retrying " << step << " in "
        << wait.count() << " s (attempt " << attempt + 1 << ")\n"
        << std::flush;
    if (sleep)
      sleep(wait);
    else
      std::this_thread::sleep_for(wait);
    // A follower's 503 not_leader: the next connection may reach the leader, so no backoff.
    wait = answer && answer->status == 503 && callback_error_code(*answer) == "not_leader"
               ? kFirstWait
               : std::min(wait * 2, kLongestWait);
  }
}

std::string callback_error_code(const CallbackAnswer& answer) {
  auto doc = nlohmann::json::parse(answer.body, nullptr, false);
  if (doc.is_object() && doc.contains("error") && doc["error"].is_object() && doc["error"].contains("code") &&
      doc["error"]["code"].is_string())
    return doc["error"]["code"].get<std::string>();
  return "";
}

std::string callback_error_text(const CallbackAnswer& answer) {
  auto doc = nlohmann::json::parse(answer.body, nullptr, false);
  if (doc.is_object() && doc.contains("error") && doc["error"].is_object()) {
    const auto& e = doc["error"];
    std::string field = e.value("field", "");
    return (field.empty() ? "" : field + ": ") + e.value("message", std::string("(no message)"));
  }
  return answer.body.substr(0, 500);
}

}  // namespace ods::cli
