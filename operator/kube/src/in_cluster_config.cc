#include <cstdlib>
#include <fstream>
#include <sstream>

#include "ods/kube/config.h"

namespace ods::kube {

namespace {

constexpr const char* kServiceAccountDir = "var/run/secrets/kubernetes.io/serviceaccount";

std::optional<std::string> real_env(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (!value || !*value) return std::nullopt;
  return std::string(value);
}

}  // namespace

Result<ClusterConfig> in_cluster_config(const InClusterOptions& options) {
  auto env = options.env ? options.env : real_env;
  const std::optional<std::string> host = env("KUBERNETES_SERVICE_HOST");
  const std::optional<std::string> port = env("KUBERNETES_SERVICE_PORT");
  if (!host || !port)
    return fail("invalid_in_cluster_config",
                "not running in a Kubernetes pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set");
  const std::filesystem::path dir = options.root / kServiceAccountDir;
  ClusterConfig config;
  const bool ipv6 = host->find(':') != std::string::npos;
  config.server = "https://" + (ipv6 ? "[" + *host + "]" : *host) + ":" + *port;
  config.origin = "in-cluster service account (" + dir.string() + ")";

  const std::filesystem::path ca = dir / "ca.crt";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(ca, ec))
    return fail("invalid_in_cluster_config", "the service account's CA " + ca.string() + " is missing");
  config.certificate_authority.file = ca;

  auto token = TokenSource::from_file(dir / "token", options.token_reread_after, options.clock);
  if (!token) return fail("invalid_in_cluster_config", "the service account's token: " + token.error().message);
  config.token = std::move(*token);

  std::ifstream namespace_file(dir / "namespace");
  std::string namespace_name;
  if (namespace_file && std::getline(namespace_file, namespace_name) && !namespace_name.empty())
    config.namespace_name = namespace_name;
  return config;
}

}  // namespace ods::kube
