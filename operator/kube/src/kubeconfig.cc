// load_kubeconfig(): the subset of kubectl's kubeconfig the operator needs.
#include <yaml-cpp/yaml.h>

#include <array>

#include "ods/kube/config.h"

namespace ods::kube {

namespace {

namespace fs = std::filesystem;

std::optional<std::string> decode_base64(const std::string& text) {
  static const std::array<int, 256> kValues = [] {
    std::array<int, 256> table{};
    table.fill(-1);
    const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (std::size_t i = 0; i < alphabet.size(); ++i) table[static_cast<unsigned char>(alphabet[i])] = int(i);
    return table;
  }();
  std::string out;
  unsigned bits = 0;
  int count = 0;
  for (char c : text) {
    if (c == '=' || c == '\n' || c == '\r' || c == ' ') continue;
    const int value = kValues[static_cast<unsigned char>(c)];
    if (value < 0) return std::nullopt;
    bits = (bits << 6) | unsigned(value);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out.push_back(char((bits >> count) & 0xFF));
    }
  }
  return out;
}

// Reads one kubeconfig; every error names the file and the field.
class KubeconfigReader {
 public:
  explicit KubeconfigReader(fs::path path) : path_(std::move(path)) {}

  Result<ClusterConfig> read(const std::string& wanted_context) {
    YAML::Node root;
    try {
      root = YAML::LoadFile(path_.string());
    } catch (const std::exception& e) {
      return error("", std::string("cannot be read as YAML: ") + e.what());
    }
    if (!root.IsMap()) return error("", "is not a kubeconfig (no mapping at the top)");
    std::string context_name = wanted_context;
    if (context_name.empty()) {
      context_name = scalar(root["current-context"]);
      if (context_name.empty()) return error("current-context", "is missing (and no context was asked for)");
    }
    auto context = named(root, "contexts", context_name, "context");
    if (!context) return std::unexpected(context.error());
    const std::string context_field = "contexts[" + context_name + "].context";
    const std::string cluster_name = scalar((*context)["cluster"]);
    const std::string user_name = scalar((*context)["user"]);
    if (cluster_name.empty()) return error(context_field + ".cluster", "is missing");

    ClusterConfig config;
    config.origin = "kubeconfig " + path_.string() + " context " + context_name;
    if (std::string ns = scalar((*context)["namespace"]); !ns.empty()) config.namespace_name = ns;

    auto cluster = named(root, "clusters", cluster_name, "cluster");
    if (!cluster) return std::unexpected(cluster.error());
    const std::string cluster_field = "clusters[" + cluster_name + "].cluster";
    config.server = scalar((*cluster)["server"]);
    if (config.server.empty()) return error(cluster_field + ".server", "is missing");
    if (!config.server.starts_with("https://") && !config.server.starts_with("http://"))
      return error(cluster_field + ".server", "must be an https:// URL, not " + config.server);
    while (config.server.ends_with("/")) config.server.pop_back();
    config.insecure_skip_tls_verify = scalar((*cluster)["insecure-skip-tls-verify"]) == "true";
    auto ca = pem(*cluster, cluster_field, "certificate-authority");
    if (!ca) return std::unexpected(ca.error());
    config.certificate_authority = *ca;

    if (user_name.empty()) return config;  // anonymous
    auto user = named(root, "users", user_name, "user");
    if (!user) return std::unexpected(user.error());
    const std::string user_field = "users[" + user_name + "].user";
    for (const char* unsupported : {"exec", "auth-provider"})
      if ((*user)[unsupported]) return error(user_field + "." + unsupported, "is not supported by ods-operator");
    auto cert = pem(*user, user_field, "client-certificate");
    auto key = pem(*user, user_field, "client-key");
    if (!cert) return std::unexpected(cert.error());
    if (!key) return std::unexpected(key.error());
    if (cert->empty() != key->empty())
      return error(user_field + (cert->empty() ? ".client-certificate" : ".client-key"),
                   "is missing (client-certificate and client-key go together)");
    config.client_certificate = *cert;
    config.client_key = *key;
    if (std::string token = scalar((*user)["token"]); !token.empty()) {
      config.token = TokenSource::fixed(token);
    } else if (std::string token_file = scalar((*user)["tokenFile"]); !token_file.empty()) {
      auto source = TokenSource::from_file(resolve(token_file));
      if (!source) return error(user_field + ".tokenFile", source.error().message);
      config.token = *source;
    }
    return config;
  }

 private:
  std::unexpected<Error> error(const std::string& field, const std::string& what) const {
    return fail("invalid_kubeconfig",
                "kubeconfig " + path_.string() + (field.empty() ? "" : ": " + field) + " " + what);
  }

  static std::string scalar(const YAML::Node& node) {
    if (!node || !node.IsScalar()) return "";
    return node.as<std::string>();
  }

  fs::path resolve(const std::string& file) const {
    fs::path p(file);
    return p.is_absolute() ? p : path_.parent_path() / p;
  }

  // The `inner` mapping of the entry of root[list] whose name is `name`.
  Result<YAML::Node> named(const YAML::Node& root, const std::string& list, const std::string& name,
                           const std::string& inner) const {
    const YAML::Node entries = root[list];
    if (entries && entries.IsSequence())
      for (const YAML::Node& entry : entries)
        if (entry.IsMap() && scalar(entry["name"]) == name) {
          if (!entry[inner] || !entry[inner].IsMap()) {
            std::string where = list;
            where.append("[").append(name).append("].").append(inner);
            return error(where, "is missing");
          }
          return entry[inner];
        }
    return error(list, "has no entry named " + name);
  }

  // `field` (a file) or `field-data` (base64 PEM).
  Result<PemSource> pem(const YAML::Node& node, const std::string& parent, const std::string& field) const {
    PemSource source;
    if (std::string data = scalar(node[field + "-data"]); !data.empty()) {
      std::optional<std::string> decoded = decode_base64(data);
      if (!decoded) return error(parent + "." + field + "-data", "is not base64");
      if (decoded->find("-----BEGIN") == std::string::npos)
        return error(parent + "." + field + "-data", "does not hold PEM data");
      source.data = std::move(*decoded);
    } else if (std::string file = scalar(node[field]); !file.empty()) {
      source.file = resolve(file);
      std::error_code ec;
      if (!fs::is_regular_file(source.file, ec))
        return error(parent + "." + field, "names " + source.file.string() + ", which does not exist");
    }
    return source;
  }

  fs::path path_;
};

}  // namespace

Result<ClusterConfig> load_kubeconfig(const std::filesystem::path& path, const std::string& context) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    return fail("invalid_kubeconfig", "kubeconfig " + path.string() + " does not exist");
  return KubeconfigReader(path).read(context);
}

}  // namespace ods::kube
