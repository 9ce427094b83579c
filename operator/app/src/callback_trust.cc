#include "callback_trust.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <vector>

namespace ods::operator_app {

namespace {

constexpr std::string_view kPemCertificate = "-----BEGIN CERTIFICATE-----";

std::string read_all(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The host of "https://host:port/path" ("[v6]" kept without brackets).
std::string host_of(const std::string& url) {
  std::string rest = url.substr(url.find("://") == std::string::npos ? 0 : url.find("://") + 3);
  rest = rest.substr(0, rest.find('/'));
  if (rest.starts_with('[')) return rest.substr(1, rest.find(']') - 1);
  return rest.substr(0, rest.find(':'));
}

using X509Ptr = std::unique_ptr<X509, decltype(&X509_free)>;

std::vector<X509Ptr> certificates_in(const std::string& pem) {
  std::vector<X509Ptr> out;
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), BIO_free);
  while (X509* certificate = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr))
    out.emplace_back(certificate, X509_free);
  ERR_clear_error();  // the end of the text reads as an error
  return out;
}

}  // namespace

Result<CallbackTrust> callback_trust(const OperatorOptions& o) {
  std::string file = o.callback_tls_ca;
  if (file.empty()) {
    const auto beside = std::filesystem::path(o.callback_tls_cert).parent_path() / "ca.crt";
    std::error_code error;
    file = std::filesystem::file_size(beside, error) > 0 && !error ? beside.string() : o.callback_tls_cert;
  }
  std::ifstream probe(file);
  if (!probe) return fail("invalid_tls", "The callback's CA " + file + " cannot be read.");
  std::string pem = read_all(file);
  if (pem.find(kPemCertificate) == std::string::npos || certificates_in(pem).empty())
    return fail("invalid_tls", "The callback's CA " + file + " holds no PEM certificate.");
  return CallbackTrust{std::move(pem), file};
}

std::string callback_trust_problem(const std::string& ca_pem, const std::string& cert_file,
                                   const std::string& callback_url) {
  auto chain = certificates_in(read_all(cert_file));
  if (chain.empty()) return cert_file + " holds no PEM certificate.";
  std::unique_ptr<X509_STORE, decltype(&X509_STORE_free)> store(X509_STORE_new(), X509_STORE_free);
  for (auto& ca : certificates_in(ca_pem)) X509_STORE_add_cert(store.get(), ca.get());
  std::unique_ptr<STACK_OF(X509), void (*)(STACK_OF(X509)*)> untrusted(sk_X509_new_null(),
                                                                       [](STACK_OF(X509) * s) { sk_X509_free(s); });
  for (std::size_t i = 1; i < chain.size(); ++i) sk_X509_push(untrusted.get(), chain[i].get());
  std::unique_ptr<X509_STORE_CTX, decltype(&X509_STORE_CTX_free)> context(X509_STORE_CTX_new(), X509_STORE_CTX_free);
  X509_STORE_CTX_init(context.get(), store.get(), chain.front().get(), untrusted.get());
  X509_VERIFY_PARAM* param = X509_STORE_CTX_get0_param(context.get());
  X509_VERIFY_PARAM_set_flags(param, X509_V_FLAG_PARTIAL_CHAIN);  // as the pods verify
  const std::string host = host_of(callback_url);
  if (X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str()) != 1)  // not an IP address: a DNS name
    X509_VERIFY_PARAM_set1_host(param, host.c_str(), host.size());
  const bool verified = X509_verify_cert(context.get()) == 1;
  const int error = X509_STORE_CTX_get_error(context.get());
  ERR_clear_error();
  if (verified) return "";
  return "runner pods will refuse the callback server's certificate " + cert_file + " for " + host + ": " +
         X509_verify_cert_error_string(error);
}

}  // namespace ods::operator_app
