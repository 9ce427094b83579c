#pragma once
// Keyed digests of what hooks read from the run context (issue #14). A hook that reads only
// env_var, var and target by literal name (dbt::LiteralHook) stops building its node on every
// run: each value it reads becomes a fingerprint component holding HMAC-SHA256(key, read),
// so a changed value builds the node ("fingerprint_changed", naming the hook and the
// variable) and its readers, and an unchanged one lets it be reused. The values themselves
// are read here, hashed, and dropped: never stored, logged or sent.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "context.h"
#include "digest_key.h"
#include "ods/dbt/artifacts.h"
#include "ods/planner/inputs.h"

namespace ods::cli {

// dbt_project.yml's vars as dbt resolves them for a hook without --vars (ODS passes none):
// top-level scalars (text as written). A name also defined under a package's block, a value
// that is a list or a map, or one with Jinja in it is in `unresolvable` instead.
struct ProjectVars {
  std::map<std::string, std::string> values;
  std::map<std::string, std::string> unresolvable;  // name -> why
};
// Errors ("invalid_project", naming the file): the file can't be read or isn't YAML.
[[nodiscard]] Result<ProjectVars> read_project_vars(const std::filesystem::path& dbt_project_yml);

// Where the values come from.
struct RunContextValues {
  const Environment* env = nullptr;  // env_var: the environment dbt inherits (child_view)
  std::optional<ProjectVars> vars;   // var; nullopt: not read (every var read is unresolved)
  // target: the fields ODS knows without reading the profile: name (only with --target) and
  // type (the manifest's adapter). Other fields keep the always-build rule.
  std::map<std::string, std::string> target;
  // Why the values can't be trusted to be dbt's (e.g. `ods state record`, after a dbt that ran
  // in an environment ODS can't see): then no digest is made, whatever the key, and each
  // always_build entry is extended with this instead of how to enable the digest.
  std::string not_visible;
};

// The component name of one read: "hook pre-hook 1 env_var SHOP_AUDIT_TAG",
// "hook post-hook 2 target.name".
std::string hook_component_name(const std::string& hook, const planner::ContextRead& read);

// Rewrites `inputs` for the literal hooks of its nodes. With `key`: each hook whose reads all
// resolve loses its always_build entry and gains one component per read; a read that doesn't
// resolve (an unset variable without default, a target field ODS doesn't know) keeps the
// entry, extended with why. Without `key`: each entry is extended with how to enable it.
// Nodes not in `inputs` are ignored. Reads nothing but `values`.
void apply_hook_digests(planner::ProjectInputs& inputs,
                        const std::map<std::string, std::vector<dbt::LiteralHook>>& hooks,
                        const std::optional<DigestKey>& key, const RunContextValues& values);

// HMAC-SHA256 of `message` under `key`, lower-case hex.
std::string hmac_sha256_hex(const std::string& key, const std::string& message);

}  // namespace ods::cli
