#pragma once
// The profile output dbt would connect with (issue 41 item 3), read before dbt runs: the chosen
// target's `outputs:` entry of profiles.yml (ods/dbt/target_choice.h finds both as dbt does),
// its scalar fields rendered as dbt renders the Jinja profiles commonly use, so a warehouse
// provider can connect without a dbt process. Anything else is refused with the reason (one
// clause), and the caller leaves the connection to dbt. Reads files only.
//
// Rendered: plain literals; `{{ ... }}` expressions (one or several in a value, with text
// around them) of `env_var('NAME')`, `env_var('NAME', 'default')` (a number default too) or a
// quoted literal, each followed by any of the filters `as_text`, `as_number` (the value must be
// a number), `int` (a whole number, read as Jinja's int filter reads it) and `string`. Refused:
// any other Jinja (`{% %}`, `{# #}`, other functions or filters), an environment variable that
// is not set (or empty) and has no default. Fields that are not scalars (maps, lists) are left
// out of `fields` and named in `structured` (a provider that can't tell what they do leaves the
// connection to dbt); a YAML null is left out.
#include <expected>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ods/dbt/target_choice.h"

namespace ods::dbt {

struct ProfileOutput {
  std::string target;                         // the output's name (TargetChoice::name)
  std::map<std::string, std::string> fields;  // field -> its rendered text ("type", "host", ...)
  std::vector<std::string> structured;        // the fields that are maps or lists, not rendered
};

using ProfileGetenv = std::function<std::string(const std::string&)>;  // "" when unset

// The output `choice` names, rendered; else why not (e.g. "the target is not known before dbt
// runs (no profiles.yml was found)", "field 'host': environment variable 'PGHOST' is not set
// and has no default").
[[nodiscard]] std::expected<ProfileOutput, std::string> read_profile_output(const TargetChoice& choice,
                                                                            const ProfileGetenv& getenv);

// One value, rendered; else why not (no field name in it). Exposed for tests.
[[nodiscard]] std::expected<std::string, std::string> render_profile_value(const std::string& text,
                                                                           const ProfileGetenv& getenv);

}  // namespace ods::dbt
