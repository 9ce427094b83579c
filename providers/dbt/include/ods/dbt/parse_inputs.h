#pragma once
// What `dbt parse` reads, as one digest, decided without dbt (issue 41 item 3, the parse's fast
// path): when it equals the digest recorded after an earlier successful parse, that parse's
// manifest is the one dbt would parse now, and no dbt process needs to start. Everything is an
// over-approximation: anything that may change the parse changes the digest, or the digest is
// declined with the reason (one clause), and the caller parses with dbt as before.
//
// The digest covers:
//  (a) the project's files dbt's parse can read, by content: dbt_project.yml, packages.yml,
//      dependencies.yml, package-lock.yml, selectors.yml, and every file under the paths
//      dbt_project.yml declares (each `*-paths` key, dbt's defaults when absent: models, macros,
//      seeds, snapshots, tests, analyses, functions) and under packages-install-path
//      (dbt_packages), with their relative names (a file added or removed changes it);
//  (b) profiles.yml as dbt reads it (the file, the profile and the target chosen), its values as
//      written, but for the credential fields (password, token, private key, keyfile, secret...),
//      whose values are neither digested nor scanned: dbt's `target` context excludes them;
//  (c) the parse command's arguments (its flags, --vars, --target, --profiles-dir);
//  (d) the dbt that runs: its interpreter's site-packages' *.dist-info names (dbt-core's and the
//      adapters' versions, every other package's too);
//  (e) the values of the environment variables those files name as env_var('LITERAL') (outside
//      credential fields; an unset one told from an empty one), and of the DBT_* variables
//      (parse_variables + the DBT_* names of set_variable_names) but those named only in a
//      profile's credential fields.
// Declined: a file naming env_var other than with a literal name; a variable whose name looks
// secret (looks_secret) named outside a profile's credential field (its value is never digested:
// a digest anyone can read must not let a guess of a secret be checked); dbt_project.yml missing
// or with paths that are not plain strings; no profiles.yml, profile or target known; dbt-core's
// dist-info not found; an editable dbt install; $DBT_PARTIAL_PARSE_FILE_PATH set.
// Reads files and the given environment only; never starts a process.
#include <cstddef>
#include <expected>
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ods::dbt {

struct ParseInputsQuery {
  std::filesystem::path project_dir;           // the project's folder, absolute
  std::filesystem::path profiles_file;         // the profiles.yml dbt reads (TargetChoice::profiles_file)
  std::string profile;                         // the profile's name (TargetChoice::profile)
  std::string target;                          // the target's name (TargetChoice::name)
  std::vector<std::string> arguments;          // the parse command's arguments as dbt gets them, in order
  std::filesystem::path python;                // the interpreter of dbt's console script (console_script_python)
  std::vector<std::filesystem::path> skipped;  // folders never read (the target path), absolute
  // The names set in the environment dbt gets (values are read through getenv only): the DBT_*
  // ones are digested, and a named variable that is empty is told from one that is unset
  // (env_var('X', 'default') parses differently).
  std::set<std::string> set_variable_names;
  std::function<std::string(const std::string&)> getenv;  // "" when unset
};

struct ParseInputsDigest {
  std::string digest;         // SHA-256 hex of parse_inputs_text
  std::size_t files = 0;      // project and package files read
  std::size_t variables = 0;  // environment variables whose values are in it
  std::string dbt_version;    // dbt-core's, from its dist-info
};

// The digest, or why the fast path is declined (one clause, naming the file or variable).
[[nodiscard]] std::expected<ParseInputsDigest, std::string> digest_parse_inputs(const ParseInputsQuery& query);

// What digest_parse_inputs hashes (text; file contents as their SHA-256). Exposed for tests
// (no credential's value is in it). `digest` receives the counts and version.
[[nodiscard]] std::expected<std::string, std::string> parse_inputs_text(const ParseInputsQuery& query,
                                                                        ParseInputsDigest& digest);

// The variable names `text` passes to env_var as a literal ('NAME' or "NAME"); else why not
// (env_var named without a literal, or the literal joined to something else). Exposed for tests.
[[nodiscard]] std::expected<std::set<std::string>, std::string> env_var_names(std::string_view text);

// DBT_ENV_SECRET_*, or a name holding PASS (PASSWORD, PASSWD, PASSPHRASE), TOKEN, SECRET, KEY,
// CREDENTIAL or PRIVATE (any case).
[[nodiscard]] bool looks_secret(const std::string& name);

// The DBT_* variables dbt's parse reads as flags, digested whether set or not.
const std::vector<std::string>& parse_variables();

}  // namespace ods::dbt
