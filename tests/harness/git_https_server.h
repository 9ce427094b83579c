#pragma once
// Test harness: a private git repository served over HTTPS on the loopback, with credentials
// (tests/harness/git_https_server.py: `git http-backend` behind a server that answers 401 to
// any request without the expected Authorization header, as a hosted git server does).
// start() makes a self-signed certificate for 127.0.0.1 (openssl CLI), a bare repository
// `<name>.git` holding `files` in one commit on branch main, and starts the server; the process
// dies with the test (BackgroundProcess). Git clients trust the certificate with
// GIT_SSL_CAINFO=certificate().
#include <expected>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "harness/background_process.h"

namespace ods::testing {

class GitHttpsServer {
 public:
  struct Options {
    std::filesystem::path dir;                 // where the repository, certificate and logs go
    std::string name = "shop";                 // the repository: https://127.0.0.1:<port>/<name>.git
    std::map<std::string, std::string> files;  // path in the repository → content
    std::string basic_credential;              // "user:password" (Basic); or
    std::string bearer_token;                  // a Bearer token
  };

  [[nodiscard]] std::expected<void, std::string> start(Options options) {
    return start(std::move(options), "127.0.0.1");
  }
  // The same on `host` (an address of this machine, e.g. a real node's, so that pods reach it):
  // the certificate names that address, the URL too.
  [[nodiscard]] std::expected<void, std::string> start(Options options, const std::string& host);
  std::string url() const;
  std::filesystem::path certificate() const { return options_.dir / "cert.pem"; }
  // The requests so far, one object each: method, path, status, auth ("none", "good", "wrong").
  std::vector<nlohmann::json> requests() const;

 private:
  Options options_;
  std::string host_ = "127.0.0.1";
  int port_ = 0;
  BackgroundProcess process_;
};

}  // namespace ods::testing
