#include "tls_context.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <fstream>
#include <string>

namespace ods::http::detail {

namespace ssl = boost::asio::ssl;

namespace {

// OpenSSL's reason for the last failure (the queue cleared), or the error code's message.
std::string openssl_reason(const boost::system::error_code& error) {
  std::string reason;
  while (const unsigned long code = ERR_get_error()) {
    char text[256];
    ERR_error_string_n(code, text, sizeof text);
    reason = text;  // the last is the most specific
  }
  return reason.empty() ? error.message() : reason;
}

Result<void> readable(const std::string& what, const std::string& file) {
  if (file.empty()) return fail("invalid_tls", "The TLS " + what + " file is not named.");
  std::ifstream in(file);
  if (!in)
    return fail("invalid_tls", "The TLS " + what + " " + file + " cannot be read: " +
                                   (std::filesystem::exists(file) ? "permission denied" : "no such file") + ".");
  return {};
}

}  // namespace

Result<std::shared_ptr<ssl::context>> load_tls_context(const TlsFiles& files) {
  ODS_TRY_VOID(readable("certificate", files.cert_file));
  ODS_TRY_VOID(readable("key", files.key_file));
  auto context = std::make_shared<ssl::context>(ssl::context::tls_server);
  context->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                       ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 | ssl::context::single_dh_use);
  ERR_clear_error();
  boost::system::error_code error;
  context->use_certificate_chain_file(files.cert_file, error);
  if (error)
    return fail("invalid_tls", "The TLS certificate " + files.cert_file +
                                   " holds no PEM certificate OpenSSL accepts: " + openssl_reason(error) + ".");
  const std::string not_its_key =
      "The TLS key " + files.key_file + " is not the key of the certificate " + files.cert_file + ".";
  context->use_private_key_file(files.key_file, ssl::context::pem, error);
  if (error) {
    const std::string reason = openssl_reason(error);
    if (reason.find("key values mismatch") != std::string::npos) return fail("invalid_tls", not_its_key);
    return fail("invalid_tls",
                "The TLS key " + files.key_file + " holds no PEM private key OpenSSL accepts: " + reason + ".");
  }
  if (SSL_CTX_check_private_key(context->native_handle()) != 1) {
    ERR_clear_error();
    return fail("invalid_tls", not_its_key);
  }
  return context;
}

Result<std::unique_ptr<TlsContextSource>> TlsContextSource::open(TlsFiles files) {
  std::unique_ptr<TlsContextSource> source(new TlsContextSource(std::move(files)));
  source->stamp_ = stamp_of(source->files_);
  auto context = load_tls_context(source->files_);
  if (!context) return std::unexpected(context.error());
  source->context_ = std::move(*context);
  source->checked_ = std::chrono::steady_clock::now();
  return source;
}

std::shared_ptr<ssl::context> TlsContextSource::current() {
  const auto now = std::chrono::steady_clock::now();
  if (now - checked_ < files_.reload_check) return context_;
  checked_ = now;
  const Stamp stamp = stamp_of(files_);
  if (stamp == stamp_) return context_;
  stamp_ = stamp;
  auto context = load_tls_context(files_);
  if (context) context_ = std::move(*context);
  if (files_.on_reload) {
    files_.on_reload(context.has_value(),
                     context
                         ? "The TLS certificate " + files_.cert_file + " changed: new connections get it."
                         : context.error().message + " The certificate served before stays until the files change.");
  }
  return context_;
}

TlsContextSource::Stamp TlsContextSource::stamp_of(const TlsFiles& files) {
  Stamp stamp;
  std::error_code error;
  stamp.cert_time = std::filesystem::last_write_time(files.cert_file, error);
  stamp.cert_size = std::filesystem::file_size(files.cert_file, error);
  stamp.key_time = std::filesystem::last_write_time(files.key_file, error);
  stamp.key_size = std::filesystem::file_size(files.key_file, error);
  return stamp;
}

}  // namespace ods::http::detail
