#pragma once
// The flags of `ods-operator`, parsed and checked before anything starts (rule 6: a bad flag
// is refused with a message naming it, and nothing runs). Durations take Go's form ("15s",
// "2m", "1h30m"); addresses are HOST:PORT; Secret references NAMESPACE/NAME.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "ods/base/result.h"

namespace ods::operator_app {

struct SecretKeyRef {
  std::string namespace_name;
  std::string name;
  std::string key;
};

struct ListenAddress {
  std::string host;
  int port = 0;
};

struct OperatorOptions {
  std::string kubeconfig;       // empty: $KUBECONFIG, else the in-cluster service account
  std::string watch_namespace;  // empty: all namespaces
  SecretKeyRef state_secret;    // the PostgreSQL DSN of the state store (required)
  SecretKeyRef callback_key;    // the key that signs per-run callback tokens (required)
  ListenAddress callback_listen{"0.0.0.0", 8081};
  std::string callback_url;  // how runner pods reach the callback server (required)
  ListenAddress metrics_listen{"0.0.0.0", 8080};
  bool leader_elect = true;
  std::string lease_namespace;  // default: the namespace of --state-secret
  std::string lease_name = "ods-operator";
  std::string identity;  // default: the host name and process id
  std::chrono::milliseconds lease_duration{15000};
  std::chrono::milliseconds renew_deadline{10000};
  std::chrono::milliseconds retry_period{2000};
  int workers = 2;
  std::string log_level = "info";
  // The runner allow-list (control::RunnerPolicy): spec.image patterns and service account names
  // DbtProjects may use; empty: any.
  std::vector<std::string> allowed_images;
  std::vector<std::string> allowed_service_accounts;
  // Where runner pods keep installed dbt packages (control::PackagesCacheVolume): a node's
  // folder (absolute) or a claim each project's namespace has; at most one; neither: no cache.
  std::string packages_cache_host_path;
  std::string packages_cache_claim;
  bool help = false;
};

// Parses argv after the program name. Errors (code "usage"): an unknown flag, a missing or
// malformed value, a required flag absent, renew deadline not shorter than the lease.
[[nodiscard]] Result<OperatorOptions> parse_operator_options(const std::vector<std::string>& args);

// "15s", "250ms", "2m", "1h30m" -> milliseconds; errors name the text.
[[nodiscard]] Result<std::chrono::milliseconds> parse_duration(const std::string& text);

// The --help text.
std::string operator_usage();

}  // namespace ods::operator_app
