#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cctype>

#include "ods/dbt/parse_inputs.h"
#include "parse_inputs_parts.h"

namespace ods::dbt::parse_inputs {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// The variable names the scalars under a credential field name with a literal (their values are
// never read): such a variable is left out of the DBT_* ones digested.
void note_credential_variables(const YAML::Node& node, std::set<std::string>& out) {
  if (node.IsScalar()) {
    if (auto names = env_var_names(node.Scalar())) out.insert(names->begin(), names->end());
    return;
  }
  if (node.IsSequence())
    for (const auto& item : node) note_credential_variables(item, out);
  if (node.IsMap())
    for (const auto& kv : node) note_credential_variables(kv.second, out);
}

// Appends `node` (at `path`) to `out`: scalars as "path: value", credential fields as a marker.
// Returns why not when a non-credential value names env_var without a literal.
std::expected<void, std::string> walk(const YAML::Node& node, const std::string& path, ProfileText& out) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar: {
      out.text += path + ": " + node.Scalar() + "\n";
      auto names = env_var_names(node.Scalar());
      if (!names) return std::unexpected("profiles.yml, " + path + ": " + names.error());
      out.variables.insert(names->begin(), names->end());
      return {};
    }
    case YAML::NodeType::Sequence: {
      std::size_t i = 0;
      for (const auto& item : node)
        if (auto r = walk(item, path + "[" + std::to_string(i++) + "]", out); !r) return r;
      out.text += path + ": [" + std::to_string(i) + "]\n";
      return {};
    }
    case YAML::NodeType::Map:
      for (const auto& kv : node) {
        const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "?";
        const std::string child = path.empty() ? key : path + "." + key;
        if (is_credential_field(key)) {
          out.text += child + ": <credential>\n";
          note_credential_variables(kv.second, out.credential_variables);
          continue;
        }
        if (auto r = walk(kv.second, child, out); !r) return r;
      }
      return {};
    default:
      out.text += path + ": ~\n";
      return {};
  }
}

}  // namespace

bool is_credential_field(const std::string& key) {
  // Fields no adapter puts into dbt's `target` context (dbt-adapters' Credentials._connection_keys
  // never lists them): their values cannot change what dbt parses.
  static const std::array<const char*, 17> kCredentials{"password",
                                                        "pass",
                                                        "passphrase",
                                                        "private_key",
                                                        "private_key_path",
                                                        "private_key_passphrase",
                                                        "token",
                                                        "access_token",
                                                        "refresh_token",
                                                        "client_secret",
                                                        "oauth_client_secret",
                                                        "keyfile",
                                                        "keyfile_json",
                                                        "secret",
                                                        "api_key",
                                                        "secret_key",
                                                        "aws_secret_access_key"};
  const std::string k = lower(key);
  return std::any_of(kCredentials.begin(), kCredentials.end(), [&k](const char* c) { return k == c; });
}

std::expected<ProfileText, std::string> read_profile_text(const std::filesystem::path& file) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(file.string());
  } catch (const YAML::Exception& e) {
    return std::unexpected(file.string() + " can't be read as YAML (" + e.what() + ")");
  }
  ProfileText out;
  if (auto r = walk(root, "", out); !r) return std::unexpected(r.error());
  return out;
}

}  // namespace ods::dbt::parse_inputs
