#pragma once
// Which dbt target a command runs against, decided before dbt runs, as dbt decides it: `--target`,
// else $DBT_TARGET, else the `target:` of the project's profile in profiles.yml (found as dbt
// finds it: `--profiles-dir`, else $DBT_PROFILES_DIR, else the project directory when it holds a
// profiles.yml — ODS runs dbt there — else ~/.dbt), and "default" when the profile has no
// `target:`. The profile is $DBT_PROFILE or dbt_project.yml's `profile:`. A `target:` (or
// `profile:`) may read `{{ env_var('NAME') }}` or `{{ env_var('NAME', 'fallback') }}`; other Jinja
// is left to dbt (the name is then unknown here). State scopes are named after the target
// (docs/cli.md, "Scopes"), so `--target dev` and no `--target` with `target: dev` are one scope.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "ods/base/result.h"

namespace ods::dbt {

struct TargetChoice {
  std::string name;             // the target's name; "" when it can't be known before dbt runs
  std::string how;              // where `name` came from, for messages ("--target", "the profile's default", ...)
  std::string profile_default;  // the profile's default target (its `target:`, rendered); "" when unknown
  std::string profile;          // the profile's name; "" when unknown
  std::filesystem::path profiles_file;  // the profiles.yml read; empty when none was read
  std::vector<std::string> targets;     // the profile's targets (its `outputs:`), in file order
  std::string unknown_why;              // why `name` is "" (one clause), else ""
};

// `flag_target`, `flag_profiles_dir`: the flags as given ("" when not). `getenv`: "" when unset.
// A profiles.yml that can't be found or read, or a profile it lacks, leaves the choice to dbt:
// success, with `name` as far as the flag or environment give it. Errors, "usage", in dbt's
// words: the target named (by any of the ways above) is not one of the profile's targets
// ("The profile 'shop' does not have a target named 'nosuch'. The valid target names for this
// profile are: - dev - pr"), naming the profiles.yml read. Reads files only.
[[nodiscard]] Result<TargetChoice> choose_target(const std::filesystem::path& project_dir,
                                                 const std::string& flag_target, const std::string& flag_profiles_dir,
                                                 const std::function<std::string(const std::string&)>& getenv);

}  // namespace ods::dbt
