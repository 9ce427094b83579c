#pragma once
// The HTTP server's TLS context (ServerOptions::tls): loaded from the certificate and key files,
// and loaded again when they change (a renewed certificate in a mounted Secret).
#include <boost/asio/ssl/context.hpp>
#include <chrono>
#include <filesystem>
#include <memory>

#include "ods/base/result.h"
#include "ods/http/server.h"

namespace ods::http::detail {

// A TLS 1.2+ server context holding the chain of `files.cert_file` and the key of
// `files.key_file`. Errors ("invalid_argument"): a file that cannot be read, that holds no PEM
// certificate or key OpenSSL accepts, or a key that is not the certificate's; each names the file.
[[nodiscard]] Result<std::shared_ptr<boost::asio::ssl::context>> load_tls_context(const TlsFiles& files);

// The context new connections get. Not thread-safe: the server calls it on its acceptor's strand.
class TlsContextSource {
 public:
  // Loads the files (errors as load_tls_context).
  [[nodiscard]] static Result<std::unique_ptr<TlsContextSource>> open(TlsFiles files);
  // The current context: when reload_check has passed since the files were last looked at and
  // their modification time or size changed, the new pair if it loads (told to on_reload either way).
  std::shared_ptr<boost::asio::ssl::context> current();

 private:
  struct Stamp {
    std::filesystem::file_time_type cert_time, key_time;
    std::uintmax_t cert_size = 0, key_size = 0;
    bool operator==(const Stamp&) const = default;
  };
  static Stamp stamp_of(const TlsFiles& files);  // zeros for a file that can't be looked at

  explicit TlsContextSource(TlsFiles files) : files_(std::move(files)) {}
  TlsFiles files_;
  std::shared_ptr<boost::asio::ssl::context> context_;
  Stamp stamp_;
  std::chrono::steady_clock::time_point checked_;
};

}  // namespace ods::http::detail
