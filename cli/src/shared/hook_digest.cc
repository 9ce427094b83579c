// Keyed digests of what hooks read from the run context (see hook_digest.h).
#include "hook_digest.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <stdexcept>
#include <unordered_map>

#include "ods/base/sha256.h"

namespace ods::cli {

namespace {

using planner::ContextRead;

// A read's value as dbt renders it into the hook, or why ODS can't know it.
struct Resolved {
  std::optional<std::string> value;
  std::string why;  // when !value
};

Resolved resolve_env(const ContextRead& read, const Environment& env) {
  const std::string value = env.getenv(read.name);
  const bool set = env.is_set ? env.is_set(read.name) : !value.empty();
  if (set) return {value, {}};
  if (read.fallback) return {*read.fallback, {}};
  if (!env.is_set) return {std::nullopt, "$" + read.name + " is empty or unset"};
  return {std::nullopt, "$" + read.name + " is not set and has no default"};
}

Resolved resolve_var(const ContextRead& read, const RunContextValues& values) {
  if (!values.vars) return {std::nullopt, "dbt_project.yml's vars were not read"};
  if (const auto it = values.vars->unresolvable.find(read.name); it != values.vars->unresolvable.end()) {
    return {std::nullopt, it->second};
  }
  if (const auto it = values.vars->values.find(read.name); it != values.vars->values.end()) return {it->second, {}};
  if (read.fallback) return {*read.fallback, {}};
  return {std::nullopt, "var " + read.name + " is not a top-level scalar of dbt_project.yml's vars and has no default"};
}

Resolved resolve(const ContextRead& read, const RunContextValues& values) {
  switch (read.kind) {
    case ContextRead::Kind::env_var:
      return resolve_env(read, *values.env);
    case ContextRead::Kind::var:
      return resolve_var(read, values);
    case ContextRead::Kind::target:
      if (const auto it = values.target.find(read.name); it != values.target.end()) return {it->second, {}};
      if (!is_target_identity(read)) {
        return {std::nullopt, "target." + read.name +
                                  " is not fingerprinted (ODS reads target.schema, target.database, target.name "
                                  "and target.type, through the warehouse probe)"};
      }
      return {std::nullopt,
              "target." + read.name +
                  " is read by the warehouse probe of ods state run, which has not run or did not answer"};
  }
  return {std::nullopt, "unknown read"};
}

bool has_jinja(const std::string& text) {
  return text.find("{{") != std::string::npos || text.find("{%") != std::string::npos;
}

}  // namespace

std::string hmac_sha256_hex(const std::string& key, const std::string& message) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> mac{};
  unsigned int size = 0;
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(message.data()), message.size(), mac.data(), &size) == nullptr) {
    throw std::runtime_error("OpenSSL HMAC-SHA256 failed");  // only on a broken crypto library
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(size * 2);
  for (unsigned int i = 0; i < size; ++i) {
    hex += kHex[mac[i] >> 4];
    hex += kHex[mac[i] & 15];
  }
  return hex;
}

Result<ProjectVars> read_project_vars(const std::filesystem::path& dbt_project_yml) {
  YAML::Node doc;
  try {
    doc = YAML::LoadFile(dbt_project_yml.string());
  } catch (const YAML::Exception& e) {
    return fail("invalid_project", dbt_project_yml.string() + ": " + e.what());
  }
  ProjectVars out;
  const YAML::Node vars = doc.IsMap() ? doc["vars"] : YAML::Node();
  if (!vars || !vars.IsMap()) return out;
  for (const auto& entry : vars) {
    const std::string name = entry.first.as<std::string>();
    const YAML::Node& value = entry.second;
    if (value.IsMap()) {  // a package's block: its names are scoped, so none of them is known here
      for (const auto& scoped : value) {
        out.unresolvable[scoped.first.as<std::string>()] =
            "var " + scoped.first.as<std::string>() + " is set per package (under " + name + ") in dbt_project.yml";
      }
    } else if (!value.IsScalar()) {
      out.unresolvable[name] = "var " + name + " is not a scalar in dbt_project.yml";
    } else if (has_jinja(value.Scalar())) {
      out.unresolvable[name] = "var " + name + " is rendered by dbt (Jinja in dbt_project.yml)";
    } else {
      out.values[name] = value.Scalar();
    }
  }
  for (const auto& [name, why] : out.unresolvable) out.values.erase(name);
  return out;
}

bool is_target_identity(const ContextRead& read) {
  return read.kind == ContextRead::Kind::target &&
         (read.name == "schema" || read.name == "database" || read.name == "name" || read.name == "type");
}

std::string hook_component_name(const std::string& hook, const ContextRead& read) {
  if (read.kind == ContextRead::Kind::target) return "hook " + hook + " target." + read.name;
  return "hook " + hook + " " + std::string(planner::kind_name(read.kind)) + " " + read.name;
}

void apply_hook_digests(planner::ProjectInputs& inputs,
                        const std::map<std::string, std::vector<dbt::LiteralHook>>& hooks,
                        const std::optional<DigestKey>& key, const RunContextValues& values) {
  if (hooks.empty()) return;
  std::unordered_map<std::string, planner::NodeInput*> by_id;
  for (auto& node : inputs.nodes) by_id[node.id] = &node;
  for (const auto& [id, node_hooks] : hooks) {
    const auto found = by_id.find(id);
    if (found == by_id.end()) continue;
    planner::NodeInput& node = *found->second;
    for (const auto& hook : node_hooks) {
      // Its entry as the provider wrote it, or as an earlier call extended it with why it stayed.
      const auto entry = std::find_if(node.always_build.begin(), node.always_build.end(), [&](const std::string& e) {
        return e == hook.always_build || e.starts_with(hook.always_build + " (");
      });
      if (entry == node.always_build.end()) continue;
      *entry = hook.always_build;
      if (!values.not_visible.empty()) {
        *entry += " (" + values.not_visible + ")";
        continue;
      }
      const bool needs_key = std::any_of(hook.reads.begin(), hook.reads.end(), [](const ContextRead& read) {
        return read.kind != ContextRead::Kind::target;
      });
      if (needs_key && !key) {
        *entry += " (" + digest_key_hint() + ")";
        continue;
      }
      std::vector<std::pair<std::string, std::string>> components;
      std::string unresolved;
      for (const auto& read : hook.reads) {
        const Resolved r = resolve(read, values);
        if (!r.value) {
          unresolved += (unresolved.empty() ? "" : "; ") + r.why;
          continue;
        }
        if (is_target_identity(read)) {  // not a secret: in every relation name, so no key
          std::string message = "ods/target-identity/1";
          message += '\0';
          message += read.name + '\0' + *r.value;
          components.emplace_back(hook_component_name(hook.hook, read), sha256_hex(message));
          continue;
        }
        if (!key) {  // another target field: never resolved (resolve), so not reached without a key
          unresolved += (unresolved.empty() ? "" : "; ") + digest_key_hint();
          continue;
        }
        std::string message = "ods/hook-input/1";
        message += '\0';
        message += std::string(planner::kind_name(read.kind)) + '\0' + read.name + '\0' + *r.value;
        components.emplace_back(hook_component_name(hook.hook, read), hmac_sha256_hex(key->bytes, message));
      }
      if (!unresolved.empty()) {
        *entry += " (" + unresolved + ")";
        continue;
      }
      node.always_build.erase(entry);
      for (auto& [name, digest] : components) node.fingerprint.components[name] = std::move(digest);
    }
  }
}

}  // namespace ods::cli
