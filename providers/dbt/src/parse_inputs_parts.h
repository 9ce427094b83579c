#pragma once
// The parts of digest_parse_inputs (ods/dbt/parse_inputs.h) read from other files than the
// project's: profiles.yml without its credentials, and the installed dbt's distributions.
#include <expected>
#include <filesystem>
#include <set>
#include <string>

namespace ods::dbt::parse_inputs {

struct ProfileText {
  std::string text;                            // every scalar as "path: value", credential values as <credential>
  std::set<std::string> variables;             // env_var names outside credential fields
  std::set<std::string> credential_variables;  // env_var names inside them (values never read)
};

// profiles.yml read as YAML: each scalar by its path, a credential field's value (and anything
// below it) replaced by a marker, scanned only for the variable names it uses. Else why not (unreadable, not YAML, a
// non-literal env_var name outside a credential field).
[[nodiscard]] std::expected<ProfileText, std::string> read_profile_text(const std::filesystem::path& file);

// True for a field dbt's `target` context leaves out: password, pass, token, private_key...
[[nodiscard]] bool is_credential_field(const std::string& key);

struct Distributions {
  std::string text;         // the site-packages folders and their *.dist-info / *.egg-info names
  std::string dbt_version;  // dbt-core's
};

// The distributions installed beside `python` (<python>/../../lib/python3*/site-packages); else
// why not (no dbt-core dist-info there, an editable dbt-core).
[[nodiscard]] std::expected<Distributions, std::string> read_distributions(const std::filesystem::path& python);

}  // namespace ods::dbt::parse_inputs
