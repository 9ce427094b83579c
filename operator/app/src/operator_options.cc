#include "operator_options.h"

#include <unistd.h>

#include <cctype>
#include <charconv>
#include <functional>
#include <map>

#include "ods/telemetry/json_log.h"

namespace ods::operator_app {
namespace {

Result<SecretKeyRef> parse_secret_ref(const std::string& flag, const std::string& value,
                                      const std::string& default_key) {
  // NAMESPACE/NAME[:KEY]
  std::string ref = value;
  std::string key = default_key;
  if (auto colon = ref.find(':'); colon != std::string::npos) {
    key = ref.substr(colon + 1);
    ref = ref.substr(0, colon);
  }
  auto slash = ref.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == ref.size() || key.empty() ||
      ref.find('/', slash + 1) != std::string::npos) {
    return fail("usage",
                flag + " must be NAMESPACE/NAME or NAMESPACE/NAME:KEY (a Secret and its key), got '" + value + "'");
  }
  return SecretKeyRef{ref.substr(0, slash), ref.substr(slash + 1), key};
}

Result<ListenAddress> parse_listen(const std::string& flag, const std::string& value) {
  auto colon = value.rfind(':');
  int port = 0;
  if (colon != std::string::npos) {
    const char* begin = value.data() + colon + 1;
    const char* end = value.data() + value.size();
    auto [ptr, ec] = std::from_chars(begin, end, port);
    if (ec != std::errc() || ptr != end || port < 0 || port > 65535 || begin == end) colon = std::string::npos;
  }
  if (colon == std::string::npos) {
    return fail("usage", flag + " must be HOST:PORT (port 0-65535), got '" + value + "'");
  }
  std::string host = value.substr(0, colon);
  return ListenAddress{host.empty() ? "0.0.0.0" : host, port};
}

Result<int> parse_positive(const std::string& flag, const std::string& value) {
  int n = 0;
  auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (ec != std::errc() || ptr != value.data() + value.size() || n < 1 || n > 64) {
    return fail("usage", flag + " must be a whole number from 1 to 64, got '" + value + "'");
  }
  return n;
}

std::string default_identity() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return std::string(host[0] ? host : "ods-operator") + "_" + std::to_string(getpid());
}

// A comma-separated list (the flag may be repeated: the lists add up); an empty item is refused.
Result<void> append_list(const std::string& flag, const std::string& value, std::vector<std::string>& out) {
  std::size_t start = 0;
  while (start <= value.size()) {
    const std::size_t comma = std::min(value.find(',', start), value.size());
    std::string item = value.substr(start, comma - start);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (item.empty())
      return fail("usage", flag + " takes a comma-separated list without empty items, got '" + value + "'");
    out.push_back(std::move(item));
    start = comma + 1;
  }
  return {};
}

}  // namespace

Result<std::chrono::milliseconds> parse_duration(const std::string& text) {
  static const std::map<std::string, long long> kUnits{{"ms", 1}, {"s", 1000}, {"m", 60000}, {"h", 3600000}};
  long long total = 0;
  size_t i = 0;
  if (text.empty()) return fail("usage", "a duration must not be empty (e.g. 15s, 2m, 1h30m)");
  while (i < text.size()) {
    size_t start = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    size_t unit_start = i;
    while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
    auto unit = kUnits.find(text.substr(unit_start, i - unit_start));
    if (start == unit_start || unit == kUnits.end() || unit_start - start > 9) {
      return fail("usage", "'" + text + "' is not a duration (digits with ms, s, m or h, e.g. 15s, 2m, 1h30m)");
    }
    total += std::stoll(text.substr(start, unit_start - start)) * unit->second;
  }
  return std::chrono::milliseconds(total);
}

Result<OperatorOptions> parse_operator_options(const std::vector<std::string>& args) {
  OperatorOptions o;
  bool have_state = false, have_key = false;
  using Setter = std::function<Result<void>(const std::string&)>;
  auto duration_into = [](std::chrono::milliseconds& out, const std::string& flag) {
    return Setter([&out, flag](const std::string& v) -> Result<void> {
      auto d = parse_duration(v);
      if (!d) return fail("usage", flag + ": " + d.error().message);
      if (d->count() <= 0) return fail("usage", flag + " must be longer than zero");
      out = *d;
      return {};
    });
  };
  std::map<std::string, Setter> valued{
      {"--kubeconfig",
       [&](const std::string& v) -> Result<void> {
         o.kubeconfig = v;
         return {};
       }},
      {"--namespace",
       [&](const std::string& v) -> Result<void> {
         o.watch_namespace = v;
         return {};
       }},
      {"--state-secret",
       [&](const std::string& v) -> Result<void> {
         auto r = parse_secret_ref("--state-secret", v, "dsn");
         if (!r) return std::unexpected(r.error());
         o.state_secret = *r;
         have_state = true;
         return {};
       }},
      {"--callback-key-secret",
       [&](const std::string& v) -> Result<void> {
         auto r = parse_secret_ref("--callback-key-secret", v, "key");
         if (!r) return std::unexpected(r.error());
         o.callback_key = *r;
         have_key = true;
         return {};
       }},
      {"--callback-listen",
       [&](const std::string& v) -> Result<void> {
         auto r = parse_listen("--callback-listen", v);
         if (!r) return std::unexpected(r.error());
         o.callback_listen = *r;
         return {};
       }},
      {"--callback-url",
       [&](const std::string& v) -> Result<void> {
         o.callback_url = v;
         return {};
       }},
      {"--metrics-listen",
       [&](const std::string& v) -> Result<void> {
         auto r = parse_listen("--metrics-listen", v);
         if (!r) return std::unexpected(r.error());
         o.metrics_listen = *r;
         return {};
       }},
      {"--lease",
       [&](const std::string& v) -> Result<void> {
         auto slash = v.find('/');
         if (slash == std::string::npos || slash == 0 || slash + 1 == v.size()) {
           return fail("usage", "--lease must be NAMESPACE/NAME, got '" + v + "'");
         }
         o.lease_namespace = v.substr(0, slash);
         o.lease_name = v.substr(slash + 1);
         return {};
       }},
      {"--identity",
       [&](const std::string& v) -> Result<void> {
         o.identity = v;
         return {};
       }},
      {"--lease-duration", duration_into(o.lease_duration, "--lease-duration")},
      {"--renew-deadline", duration_into(o.renew_deadline, "--renew-deadline")},
      {"--retry-period", duration_into(o.retry_period, "--retry-period")},
      {"--workers",
       [&](const std::string& v) -> Result<void> {
         auto n = parse_positive("--workers", v);
         if (!n) return std::unexpected(n.error());
         o.workers = *n;
         return {};
       }},
      {"--allowed-images",
       [&](const std::string& v) -> Result<void> { return append_list("--allowed-images", v, o.allowed_images); }},
      {"--allowed-service-accounts",
       [&](const std::string& v) -> Result<void> {
         return append_list("--allowed-service-accounts", v, o.allowed_service_accounts);
       }},
      {"--packages-cache-host-path",
       [&](const std::string& v) -> Result<void> {
         if (!v.starts_with("/") || v.find("/../") != std::string::npos || v.ends_with("/.."))
           return fail("usage", "--packages-cache-host-path must be an absolute path on the nodes, got '" + v + "'");
         o.packages_cache_host_path = v;
         return {};
       }},
      {"--packages-cache-claim",
       [&](const std::string& v) -> Result<void> {
         const bool dns_name = !v.empty() && v.size() <= 253 &&
                               v.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-.") == std::string::npos &&
                               std::isalnum(static_cast<unsigned char>(v.front())) &&
                               std::isalnum(static_cast<unsigned char>(v.back()));
         if (!dns_name)
           return fail("usage", "--packages-cache-claim must be a PersistentVolumeClaim name, got '" + v + "'");
         o.packages_cache_claim = v;
         return {};
       }},
      {"--log-level",
       [&](const std::string& v) -> Result<void> {
         // The one parser of level names (the chart's values offer debug, info, warn, error).
         if (telemetry::LogLevel level; !telemetry::parse_log_level(v, level)) {
           return fail("usage", "--log-level must be debug, info, warn (or warning) or error, got '" + v + "'");
         }
         o.log_level = v;
         return {};
       }},
  };
  for (size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i];
    std::optional<std::string> value;
    if (auto eq = flag.find('='); eq != std::string::npos && flag.starts_with("--")) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
    }
    if (flag == "--help" || flag == "-h") {
      o.help = true;
      return o;
    }
    if (flag == "--leader-elect" || flag == "--no-leader-elect") {
      if (value) return fail("usage", flag + " takes no value");
      o.leader_elect = flag == "--leader-elect";
      continue;
    }
    auto setter = valued.find(flag);
    if (setter == valued.end()) return fail("usage", "unknown flag '" + args[i] + "' (see ods-operator --help)");
    if (!value) {
      if (i + 1 >= args.size()) return fail("usage", flag + " needs a value");
      value = args[++i];
    }
    if (auto r = setter->second(*value); !r) return std::unexpected(r.error());
  }
  if (!have_state)
    return fail("usage", "--state-secret is required: the Secret holding the state store's PostgreSQL DSN");
  if (!have_key) return fail("usage", "--callback-key-secret is required: the Secret holding the callback signing key");
  if (o.callback_url.empty())
    return fail("usage", "--callback-url is required: the URL runner pods reach the operator at");
  if (!o.callback_url.starts_with("http://") && !o.callback_url.starts_with("https://")) {
    return fail("usage", "--callback-url must start with http:// or https://, got '" + o.callback_url + "'");
  }
  if (o.renew_deadline >= o.lease_duration) {
    return fail("usage", "--renew-deadline must be shorter than --lease-duration");
  }
  if (o.retry_period >= o.renew_deadline) {
    return fail("usage", "--retry-period must be shorter than --renew-deadline");
  }
  if (!o.packages_cache_host_path.empty() && !o.packages_cache_claim.empty())
    return fail("usage", "--packages-cache-host-path and --packages-cache-claim: give one packages cache, not both");
  if (o.lease_namespace.empty()) o.lease_namespace = o.state_secret.namespace_name;
  if (o.identity.empty()) o.identity = default_identity();
  return o;
}

std::string operator_usage() {
  return R"(usage: ods-operator --state-secret NS/NAME[:KEY] --callback-key-secret NS/NAME[:KEY] --callback-url URL [flags]

Keeps DbtProject resources built: schedules DbtRuns, runs each in a runner pod (a Job),
plans against the PostgreSQL state store and records the results.

  --kubeconfig FILE            cluster credentials (default: $KUBECONFIG, else the in-cluster service account)
  --namespace NS               watch only this namespace (default: all namespaces)
  --state-secret NS/NAME[:KEY] Secret holding the PostgreSQL DSN of the state store (key default: dsn)
  --callback-key-secret NS/NAME[:KEY]
                               Secret holding the key that signs per-run callback tokens (key default: key)
  --callback-listen HOST:PORT  where the callback server listens (default 0.0.0.0:8081)
  --callback-url URL           how runner pods reach the callback server (e.g. http://ods.ods-system.svc:8081)
  --metrics-listen HOST:PORT   /metrics, /healthz, /readyz (default 0.0.0.0:8080)
  --leader-elect | --no-leader-elect
                               take part in leader election on a Lease (default on)
  --lease NS/NAME              the Lease (default: <state secret namespace>/ods-operator)
  --identity NAME              this replica's name in the Lease (default: host name and pid)
  --lease-duration D           default 15s
  --renew-deadline D           default 10s
  --retry-period D             default 2s
  --workers N                  reconcile workers per controller (default 2)
  --log-level LEVEL            debug, info, warning, error (default info)
  --allowed-images P[,P...]    the runner images DbtProjects may name, as shell patterns (`*` matches
                               any text, e.g. ghcr.io/ods-dev/ods-runner:*); default: any image
  --allowed-service-accounts N[,N...]
                               the service accounts runner pods may run as (none named: the
                               namespace's default, always allowed); default: any
  --packages-cache-host-path PATH
                               runner pods keep installed dbt packages in PATH/<namespace> on their
                               node (a hostPath; the folder must be writable by the runner's user)
  --packages-cache-claim NAME  ... or in the PersistentVolumeClaim NAME of each project's namespace;
                               default: no cache (dbt deps on every run of a project with packages)
)";
}

}  // namespace ods::operator_app
