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
  // target: the identity fields ODS knows (is_target_identity): before the warehouse probe name
  // (only with --target) and type (the manifest's adapter); after it also schema and database
  // as the probe's connection read them. Other fields keep the always-build rule.
  std::map<std::string, std::string> target;
  // Why the values can't be trusted to be dbt's (e.g. `ods state record`, after a dbt that ran
  // in an environment ODS can't see): then no digest is made, whatever the key, and each
  // always_build entry is extended with this instead of how to enable the digest.
  std::string not_visible;
};

// Whether `read` is one of the target's identity fields (target.schema, target.database,
// target.name, target.type): where the scope's builds go, never a secret, so its value is
// fingerprinted without a digest key (issue 27 item 3).
bool is_target_identity(const planner::ContextRead& read);

// The component name of one read: "hook pre-hook 1 env_var SHOP_AUDIT_TAG",
// "hook post-hook 2 target.name".
std::string hook_component_name(const std::string& hook, const planner::ContextRead& read);

// Rewrites `inputs` for the literal hooks of its nodes. Each hook whose reads all resolve loses
// its always_build entry and gains one component per read: SHA-256 of a target identity
// field's value (no key needed), HMAC-SHA256 under `key` of an env_var or var value (a hook that
// reads one needs the key). A read that doesn't resolve (an unset variable without default, a
// target field ODS doesn't know or hasn't read yet) keeps the entry, extended with why; without
// `key` a hook that reads env_var or var keeps it extended with how to enable it. Calling it
// again (with the probe's target values) revisits the entries an earlier call extended.
// Nodes not in `inputs` are ignored. Reads nothing but `values`.
void apply_hook_digests(planner::ProjectInputs& inputs,
                        const std::map<std::string, std::vector<dbt::LiteralHook>>& hooks,
                        const std::optional<DigestKey>& key, const RunContextValues& values);

// HMAC-SHA256 of `message` under `key`, lower-case hex.
std::string hmac_sha256_hex(const std::string& key, const std::string& message);

}  // namespace ods::cli
