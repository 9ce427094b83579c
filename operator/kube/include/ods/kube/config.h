#pragma once
// Where the operator finds its cluster: a kubeconfig file (out of the cluster: client
// certificates or a token) or the pod's service account (in the cluster). Both produce a
// ClusterConfig, which make_client() (ods/kube/rest_client.h) turns into a Client.
//
// Errors are values (ods::Result): code "invalid_kubeconfig" or "invalid_in_cluster_config",
// and a message naming the file and the field (e.g. "users[admin].user.client-key").
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "ods/base/result.h"

namespace ods::kube {

// PEM text given inline (kubeconfig *-data fields, decoded) or as a file read when a client
// connects. At most one of the two is set; both empty: not configured.
struct PemSource {
  std::string data;
  std::filesystem::path file;
  bool empty() const { return data.empty() && file.empty(); }
};

// A bearer token: fixed, or read from a file that may be rewritten (bound service-account tokens
// rotate). A file is re-read when the last read is older than `reread_after` (client-go: one
// minute) or after invalidate() (the client calls it on a 401). Thread-safe.
class TokenSource {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;

  static std::shared_ptr<TokenSource> fixed(std::string token);
  // Reads the file once now; an unreadable or empty file is an error naming it.
  [[nodiscard]] static Result<std::shared_ptr<TokenSource>> from_file(
      std::filesystem::path file, std::chrono::seconds reread_after = std::chrono::seconds(60), Clock clock = {});

  // The current token. When a re-read fails the last good token is kept (the error is not
  // returned: the server's 401 says more).
  std::string token();
  // Forces a re-read at the next token() (no-op for a fixed token).
  void invalidate();
  // The file, empty for a fixed token.
  const std::filesystem::path& file() const { return file_; }

 private:
  TokenSource() = default;
  std::mutex mutex_;
  std::string token_;
  std::filesystem::path file_;
  std::chrono::seconds reread_after_{60};
  Clock clock_;
  std::chrono::steady_clock::time_point read_at_{};
  bool stale_ = false;
};

struct ClusterConfig {
  std::string server;               // https://host:port, no trailing slash
  PemSource certificate_authority;  // empty: the system's trust store
  bool insecure_skip_tls_verify = false;
  PemSource client_certificate;  // with client_key: TLS client authentication
  PemSource client_key;
  std::shared_ptr<TokenSource> token;      // null: no bearer token
  std::string namespace_name = "default";  // the context's namespace, or the pod's
  std::string origin;  // where it came from, for messages: "kubeconfig <file> context <name>", "in-cluster"
};

// Reads a kubeconfig (YAML): the context `context` (empty: current-context), its cluster (server,
// certificate-authority[-data], insecure-skip-tls-verify) and user (client-certificate[-data],
// client-key[-data], token, tokenFile). Relative file paths are relative to the kubeconfig's
// directory, as kubectl reads them. Files named are checked to exist now. exec and auth-provider
// users are refused (not supported).
[[nodiscard]] Result<ClusterConfig> load_kubeconfig(const std::filesystem::path& path, const std::string& context = "");

struct InClusterOptions {
  std::filesystem::path root = "/";  // tests point this at a temp dir holding var/run/secrets/...
  // Environment lookup (KUBERNETES_SERVICE_HOST, KUBERNETES_SERVICE_PORT); default: getenv.
  std::function<std::optional<std::string>(const std::string&)> env;
  std::chrono::seconds token_reread_after{60};
  TokenSource::Clock clock;  // for the token's re-reads; default steady_clock
};

// The pod's service account: https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT, the CA
// <root>/var/run/secrets/kubernetes.io/serviceaccount/ca.crt, the token file beside it (re-read
// as it rotates) and its namespace file.
[[nodiscard]] Result<ClusterConfig> in_cluster_config(const InClusterOptions& options = {});

}  // namespace ods::kube
